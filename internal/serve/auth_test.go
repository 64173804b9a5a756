package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// newKey returns a fresh ed25519 signer.
func newKey(t testing.TB) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseAuthorizedKeys(t *testing.T) {
	a, b, c := newKey(t), newKey(t), newKey(t)
	text := "# workshop keys\n\n" + string(gossh.MarshalAuthorizedKey(a.PublicKey())) +
		`no-pty,command="x" ` + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(b.PublicKey()))) + " alice@laptop\n"
	keys, err := ParseAuthorizedKeys([]byte(text), "ak")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || !keys.Has(a.PublicKey()) || !keys.Has(b.PublicKey()) {
		t.Errorf("parsed %d keys (a %v, b %v), want a and b", len(keys), keys.Has(a.PublicKey()), keys.Has(b.PublicKey()))
	}
	if keys.Has(c.PublicKey()) {
		t.Error("a key not in the file is accepted")
	}
	_, err = ParseAuthorizedKeys([]byte(text+"ssh-ed25519 AAAAnotbase64!!\n"), "ak")
	if err == nil || !strings.Contains(err.Error(), "ak:5") {
		t.Errorf("error %v, want one naming ak:5", err)
	}
	if _, err := ParseAuthorizedKeys([]byte("# nothing\n"), "ak"); err == nil {
		t.Error("a file with no key is accepted")
	}
}

func FuzzParseAuthorizedKeys(f *testing.F) {
	f.Add([]byte(string(gossh.MarshalAuthorizedKey(newKey(f).PublicKey()))))
	f.Add([]byte("# c\n\nssh-ed25519 AAAA x\n"))
	f.Add([]byte(`command="a b" ssh-rsa AAAAB3 c` + "\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		keys, err := ParseAuthorizedKeys(text, "fuzz")
		if err == nil && len(keys) == 0 {
			t.Fatal("no error and no key")
		}
		for _, k := range keys {
			if !keys.Has(k) {
				t.Fatal("a parsed key is not in its own set")
			}
		}
	})
}

func TestPassphrase(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pass")
	if err := os.WriteFile(path, []byte("correct horse\r\nsecond line ignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPassphrase(path)
	if err != nil {
		t.Fatal(err)
	}
	for guess, want := range map[string]bool{"correct horse": true, "correct horse\r": false, "correct hors": false, "": false, "Correct horse": false} {
		if got := p.Matches(guess); got != want {
			t.Errorf("Matches(%q) = %v, want %v", guess, got, want)
		}
	}
	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPassphrase(path); err == nil || !strings.Contains(err.Error(), "at least 8") {
		t.Errorf("a 5-character passphrase: error %v, want a refusal", err)
	}
}

func TestLimiterBlocksThenForgets(t *testing.T) {
	l := newLimiter(3, time.Minute)
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	for i := 1; i <= 3; i++ {
		if l.blocked("10.0.0.1") {
			t.Fatalf("blocked before failure %d", i)
		}
		if got := l.fail("10.0.0.1"); got != (i == 3) {
			t.Fatalf("fail %d reports blocked %v", i, got)
		}
		now = now.Add(10 * time.Second)
	}
	if !l.blocked("10.0.0.1") {
		t.Fatal("not blocked after 3 failures within the window")
	}
	if l.blocked("10.0.0.2") {
		t.Fatal("another address is blocked")
	}
	// The first failure (t=1000) leaves the window at t=1060.
	now = time.Unix(1061, 0)
	if l.blocked("10.0.0.1") {
		t.Fatal("still blocked after the first failure left the window")
	}
}
