package class

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// TestSanitizeName: a display name loses control and format characters,
// invalid UTF-8 and runs of white space, and is cut at MaxNameLen runes;
// a name with nothing printable falls back to "participant".
func TestSanitizeName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"alice", "alice"},
		{"  Ada   Lovelace \t", "Ada Lovelace"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"}, // the escape byte goes: no colour reaches others
		{"a\nb\rc", "a b c"},
		{"\x00\x07", ""},
		{"abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrst"},
		{"ééééééééééééééééééééé", "éééééééééééééééééééé"},
		{"bad\xffutf8", "badutf8"},
		{"zero\u200bwidth", "zerowidth"}, // U+200B is a format character, not printable
	} {
		if got := SanitizeName(c.in); got != c.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := DefaultName("\x1b\x1b"); got != "participant" {
		t.Errorf("DefaultName of nothing printable = %q, want participant", got)
	}
}

// FuzzSanitizeName: whatever a participant types, the name shown to
// others is valid, printable, trimmed, bounded and a fixed point.
func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"alice", " a  b ", "\x1b[2J", "ü\u200b", strings.Repeat("x ", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SanitizeName(s)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > MaxNameLen {
			t.Fatalf("SanitizeName(%q) = %q: invalid or too long", s, got)
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("SanitizeName(%q) = %q: untrimmed or double spaces", s, got)
		}
		for _, r := range got {
			if !unicode.IsPrint(r) {
				t.Fatalf("SanitizeName(%q) = %q keeps %U", s, got, r)
			}
		}
		if again := SanitizeName(got); again != got {
			t.Fatalf("not idempotent: %q → %q → %q", s, got, again)
		}
	})
}

// TestJoinNamesUnique: names are unique without regard to case (a clash
// gets "-2", cut to fit), a returning key keeps its name, a rename to a
// taken or empty name is refused, and a freed name can be taken again.
func TestJoinNamesUnique(t *testing.T) {
	r := NewRegistry()
	a, _ := r.Join("k1", "alice", false)
	b, _ := r.Join("k2", "ALICE", false)
	c, _ := r.Join("k3", "", false)
	again, _ := r.Join("k1", "someone-else", false)
	if a.Name() != "alice" || b.Name() != "ALICE-2" || c.Name() != "participant" || again.Name() != "alice" {
		t.Fatalf("names %q %q %q %q, want alice ALICE-2 participant alice", a.Name(), b.Name(), c.Name(), again.Name())
	}
	long, _ := r.Join("k4", strings.Repeat("z", 30), false)
	long2, _ := r.Join("k5", strings.Repeat("z", 30), false)
	if want := strings.Repeat("z", 18) + "-2"; long2.Name() != want || len(long.Name()) != MaxNameLen {
		t.Fatalf("long names %q %q, want %q", long.Name(), long2.Name(), want)
	}
	if _, err := b.Rename("Alice"); err == nil {
		t.Fatal("renaming to a name another holds (case aside) succeeded")
	}
	if _, err := b.Rename("\x1b\x00"); err == nil {
		t.Fatal("renaming to nothing printable succeeded")
	}
	if n, err := b.Rename("  bob "); err != nil || n != "bob" || b.Name() != "bob" {
		t.Fatalf("Rename = %q, %v; Name %q", n, err, b.Name())
	}
	// The freed name can be taken again.
	if d, _ := r.Join("k6", "alice-2", false); d.Name() != "alice-2" {
		t.Fatalf("got %q", d.Name())
	}
}

// TestLeaderboardOrder: the board ranks each participant's best run on
// one data set at ε ≤ the target by ARI, then lower ε, then the earlier
// run; runs above the target or on other data do not count, and a run
// without a finite ε is refused.
func TestLeaderboardOrder(t *testing.T) {
	r := NewRegistry()
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	seats := map[string]*Seat{}
	for _, n := range []string{"ann", "ben", "cat", "dan", "eve"} {
		seats[n], _ = r.Join("id-"+n, n, false)
	}
	add := func(who string, eps, ari float64, data string, min int) {
		t.Helper()
		if err := seats[who].Report(Run{Epsilon: eps, ARI: ari, Data: data, At: t0.Add(time.Duration(min) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	add("ann", 2, 0.50, "d1", 1)
	add("ann", 8, 0.90, "d1", 2) // above the target: not counted
	add("ben", 4, 0.60, "d1", 3)
	add("ben", 1, 0.55, "d1", 4)
	add("cat", 1, 0.60, "d1", 5) // ties ben's 0.60 at a lower ε: above ben
	add("dan", 4, 0.60, "d1", 2) // ties ben exactly, earlier: above ben
	add("eve", 0.5, 0.99, "d2", 1)
	runs := r.snapshot()
	got := Leaderboard(runs, "d1", 4)
	var names []string
	for _, e := range got {
		names = append(names, fmt.Sprintf("%s:%.2f@%g/%d", e.Name, e.Best.ARI, e.Best.Epsilon, e.Runs))
	}
	want := "cat:0.60@1/1 dan:0.60@4/1 ben:0.60@4/2 ann:0.50@2/1"
	if s := strings.Join(names, " "); s != want {
		t.Fatalf("leaderboard %s, want %s", s, want)
	}
	if got := Leaderboard(runs, "d1", 16); got[0].Name != "ann" || got[0].Best.ARI != 0.9 {
		t.Fatalf("at ε ≤ 16 the first is %+v, want ann 0.9", got[0])
	}
	if ds := DataSets(runs); strings.Join(ds, ",") != "d1,d2" {
		t.Fatalf("DataSets = %v", ds)
	}
	if err := seats["ann"].Report(Run{Epsilon: math.Inf(1), ARI: 0.5}); err == nil {
		t.Fatal("a run with no finite ε was filed")
	}
}

// TestParticipantRefused: a participant can neither read the board nor
// push, and is not told of board changes.
func TestParticipantRefused(t *testing.T) {
	r := NewRegistry()
	p, _ := r.Join("p", "pat", false)
	if _, err := p.Runs(); !errors.Is(err, ErrNotInstructor) {
		t.Fatalf("a participant read the board: %v", err)
	}
	got := 0
	stop := p.Listen(func(any) { got++ })
	defer stop()
	if n, err := p.Push(Push{Message: "hi"}); !errors.Is(err, ErrNotInstructor) || n != 0 {
		t.Fatalf("a participant pushed: %d, %v", n, err)
	}
	if got != 0 {
		t.Fatalf("a refused push reached %d sessions", got)
	}
	if err := p.Report(Run{Epsilon: 1, ARI: 0.5}); err != nil {
		t.Fatal(err)
	}
	if got != 0 {
		t.Fatal("a participant was told of a board change")
	}
}

// TestListening: Listening counts each listener from Listen until its stop,
// and a second stop changes nothing.
func TestListening(t *testing.T) {
	r := NewRegistry()
	a, _ := r.Join("a", "ann", false)
	b, _ := r.Join("b", "bob", true)
	stopA := a.Listen(func(any) {})
	stopB := b.Listen(func(any) {})
	if n := r.Listening(); n != 2 {
		t.Fatalf("Listening = %d with two listeners, want 2", n)
	}
	stopA()
	stopA()
	if n := r.Listening(); n != 1 {
		t.Fatalf("Listening = %d after one stop (called twice), want 1", n)
	}
	stopB()
	if n := r.Listening(); n != 0 {
		t.Fatalf("Listening = %d after every stop, want 0", n)
	}
}

// TestPushReachesOthers: an instructor's push reaches every other session
// once, its message sanitised, not the sender; an empty push is refused;
// a reported run tells the instructor, not the participants.
func TestPushReachesOthers(t *testing.T) {
	r := NewRegistry()
	in, _ := r.Join("i", "teacher", true)
	a, _ := r.Join("a", "ann", false)
	b, _ := r.Join("b", "ben", false)
	var mu sync.Mutex
	got := map[string][]any{}
	for name, s := range map[string]*Seat{"teacher": in, "ann": a, "ben": b} {
		defer s.Listen(func(m any) { mu.Lock(); got[name] = append(got[name], m); mu.Unlock() })()
	}
	if _, err := in.Push(Push{}); err == nil {
		t.Fatal("an empty push was sent")
	}
	n, err := in.Push(Push{Message: "try ε = 1\x1b[2J", Preset: &Preset{Summary: "dppca", Settings: 42}})
	if err != nil || n != 2 {
		t.Fatalf("Push reached %d sessions (%v), want 2", n, err)
	}
	for _, name := range []string{"ann", "ben"} {
		p, ok := got[name][0].(Push)
		if !ok || p.Message != "try ε = 1[2J" || p.From != "teacher" || p.Seq != 1 || p.Preset.Settings != 42 {
			t.Fatalf("%s got %#v", name, got[name])
		}
	}
	if len(got["teacher"]) != 0 {
		t.Fatalf("the pushing instructor got its own push: %v", got["teacher"])
	}
	// A reported run tells the instructor, not the participants.
	if err := a.Report(Run{Epsilon: 1, ARI: 0.4}); err != nil {
		t.Fatal(err)
	}
	if len(got["teacher"]) != 1 || len(got["ann"]) != 1 {
		t.Fatalf("after a report: teacher %v, ann %v", got["teacher"], got["ann"])
	}
}

// TestRegistryBounds: a member keeps its last MaxRunsPerMember runs, the
// class refuses a member past MaxMembers (ErrFull) but lets a known one
// reconnect.
func TestRegistryBounds(t *testing.T) {
	r := NewRegistry()
	s, _ := r.Join("a", "a", false)
	for i := range MaxRunsPerMember + 5 {
		if err := s.Report(Run{Epsilon: float64(i), ARI: 0.1}); err != nil {
			t.Fatal(err)
		}
	}
	runs := r.snapshot()
	if len(runs) != MaxRunsPerMember || runs[0].Epsilon != 5 {
		t.Fatalf("%d runs kept, the oldest ε %v; want %d from ε 5", len(runs), runs[0].Epsilon, MaxRunsPerMember)
	}
	for i := range MaxMembers {
		if _, err := r.Join(fmt.Sprint("m", i), "m", false); err != nil && i < MaxMembers-1 {
			t.Fatalf("member %d refused: %v", i, err)
		}
	}
	if _, err := r.Join("one-more", "x", false); !errors.Is(err, ErrFull) {
		t.Fatalf("member past the bound: %v", err)
	}
	if _, err := r.Join("a", "a", false); err != nil {
		t.Fatalf("a known member reconnecting to a full class: %v", err)
	}
}

// TestRegistryConcurrent reports, renames, reads and pushes from many
// goroutines at once (run with -race).
func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	in, _ := r.Join("i", "teacher", true)
	var count sync.Mutex
	n := 0
	defer in.Listen(func(any) { count.Lock(); n++; count.Unlock() })()
	var wg sync.WaitGroup
	for g := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := r.Join(fmt.Sprint("k", g), "p", false)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Listen(func(any) {})()
			for i := range 50 {
				if err := s.Report(Run{Epsilon: float64(i % 8), ARI: float64(i) / 50, Data: "d"}); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					_, _ = s.Rename(fmt.Sprint("p", g, "-", i))
					_, _ = in.Push(Push{Message: "m"})
				}
				if _, err := in.Runs(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	runs, _ := in.Runs()
	if len(runs) != 20*50 {
		t.Fatalf("%d runs, want %d", len(runs), 20*50)
	}
	if lb := Leaderboard(runs, "d", 4); len(lb) != 20 {
		t.Fatalf("%d leaderboard lines, want 20", len(lb))
	}
	count.Lock()
	defer count.Unlock()
	if n < 20*50 { // one Changed per report, and more per rename
		t.Fatalf("the instructor heard of %d changes, want at least %d", n, 20*50)
	}
}
