package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHostKeyCreatedOnceWithMode0600(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "host_key")
	s1, created, err := LoadOrCreateHostKey(path)
	if err != nil || !created {
		t.Fatalf("first load: created %v, err %v; want a new key", created, err)
	}
	if got := s1.PublicKey().Type(); got != "ssh-ed25519" {
		t.Errorf("key type %s, want ssh-ed25519", got)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("host key mode %04o, want 0600", perm)
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
		t.Errorf("host key folder mode %04o, want 0700", dir.Mode().Perm())
	}
	s2, created, err := LoadOrCreateHostKey(path)
	if err != nil || created {
		t.Fatalf("second load: created %v, err %v; want the same key read back", created, err)
	}
	if !bytes.Equal(s1.PublicKey().Marshal(), s2.PublicKey().Marshal()) {
		t.Error("the host key changed between two starts")
	}
}

func TestHostKeyReadableByOthersRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host_key")
	if _, _, err := LoadOrCreateHostKey(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := LoadOrCreateHostKey(path)
	if err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("error %v, want a refusal that says chmod 600", err)
	}
}

func TestHostKeyGarbageRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host_key")
	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateHostKey(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want one naming %s", err, path)
	}
}
