package serve

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestTokenText: tokens are three groups of four symbols of the alphabet,
// and differ.
func TestTokenText(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		tok := newTokenText()
		if !tokenPattern.MatchString("resume "+tok) || len(tok) != 14 {
			t.Fatalf("token %q is not xxxx-xxxx-xxxx", tok)
		}
		for _, r := range strings.ReplaceAll(tok, "-", "") {
			if !strings.ContainsRune(tokenAlphabet, r) {
				t.Fatalf("token %q has %q, outside the alphabet", tok, r)
			}
		}
		if seen[tok] {
			t.Fatalf("token %q drawn twice in 200", tok)
		}
		seen[tok] = true
	}
}

func TestNormalizeToken(t *testing.T) {
	for in, want := range map[string]string{
		"abcd-efgh-jkmn":   "abcdefghjkmn",
		"ABCD EFGH-jkmn":   "abcdefghjkmn",
		"abcdefghjkmn":     "abcdefghjkmn",
		"":                 "",
		"é-Ü":              "éÜ",
		"\tab-cd  ":        "abcd",
		"zz-zz-zz-zz-zz-z": "zzzzzzzzzzz",
	} {
		if got := normalizeToken(in); got != want {
			t.Errorf("normalizeToken(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzNormalizeToken: the normal form is idempotent and holds no dash,
// space or ASCII capital, whatever a user types after "resume".
func FuzzNormalizeToken(f *testing.F) {
	for _, s := range []string{"abcd-efgh-jkmn", "ABCD EFGH", "", "\x00-\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := normalizeToken(s)
		if normalizeToken(n) != n {
			t.Fatalf("not idempotent on %q: %q", s, n)
		}
		if strings.ContainsAny(n, "- \tABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Fatalf("normalizeToken(%q) = %q keeps a dash, space or capital", s, n)
		}
	})
}

func TestFmtKeep(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour: "1h", 2 * time.Hour: "2h", 30 * time.Minute: "30m",
		90 * time.Minute: "90m", 90 * time.Second: "1m30s", 200 * time.Millisecond: "200ms", 0: "0s",
	} {
		if got := fmtKeep(d); got != want {
			t.Errorf("fmtKeep(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestSequence: a tea.Sequence's commands are found in their order; a
// batch or another message is not a sequence.
func TestSequence(t *testing.T) {
	a := func() tea.Msg { return statusText("a") }
	b := func() tea.Msg { return statusText("b") }
	cmds, ok := sequence(tea.Sequence(a, b)())
	if !ok || len(cmds) != 2 || cmds[0]() != statusText("a") || cmds[1]() != statusText("b") {
		t.Fatalf("sequence of a, b: %d commands, ok %v", len(cmds), ok)
	}
	for _, msg := range []tea.Msg{tea.Batch(a, b)(), statusText("x"), tea.QuitMsg{}, []tea.Cmd{a}} {
		if _, ok := sequence(msg); ok {
			t.Errorf("%T taken for a sequence", msg)
		}
	}
}
