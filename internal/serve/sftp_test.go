package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// TestSFTPReadOnlySessionFolder: with AllowSFTP, a key's session folder is
// readable over SFTP and nothing else is: no path or link out of it, no
// write of any kind.
func TestSFTPReadOnlySessionFolder(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI(); c.AllowSFTP = true })
	sum := sha256.Sum256(h.key.PublicKey().Marshal())
	dir := filepath.Join(h.stateDir, "key-"+hex.EncodeToString(sum[:8]))
	outside := filepath.Join(h.stateDir, "..", "secret.txt")
	for p, body := range map[string]string{filepath.Join(dir, "export.csv"): "eps,ari\n1,0.5\n", outside: "secret"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link-out")); err != nil {
		t.Fatal(err)
	}
	c, err := sftp.NewClient(h.keyClient(t))
	if err != nil {
		t.Fatalf("sftp: %v", err)
	}
	defer c.Close()
	infos, err := c.ReadDir("/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range infos {
		names = append(names, i.Name())
	}
	if !slices.Contains(names, "export.csv") {
		t.Errorf("listing %v lacks export.csv", names)
	}
	f, err := c.Open("/export.csv")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(body) != "eps,ari\n1,0.5\n" {
		t.Errorf("export.csv read %q, %v", body, err)
	}
	for _, p := range []string{"/../secret.txt", "/../../secret.txt", "/link-out", "../secret.txt"} {
		if f, err := c.Open(p); err == nil {
			b, _ := io.ReadAll(f)
			f.Close()
			t.Errorf("Open(%q) read %q: a path out of the session folder", p, b)
		}
	}
	if _, err := c.Create("/new.txt"); err == nil {
		t.Error("a file was created")
	}
	if err := c.Remove("/export.csv"); err == nil {
		t.Error("a file was removed")
	}
	if err := c.Mkdir("/d"); err == nil {
		t.Error("a folder was made")
	}
	if err := c.Rename("/export.csv", "/x.csv"); err == nil {
		t.Error("a file was renamed")
	}
	if _, err := os.Stat(filepath.Join(dir, "export.csv")); err != nil {
		t.Errorf("export.csv after the refused changes: %v", err)
	}
}

// TestPassphraseFolderByName: a passphrase login whose user name is an
// existing session folder's reaches that folder; any other gets a new one.
func TestPassphraseFolderByName(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI(); c.AllowSFTP = true })
	id := "pass-0123456789abcdef"
	if err := os.MkdirAll(filepath.Join(h.stateDir, id), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.stateDir, id, "mine.csv"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	dial := func(user string) *sftp.Client {
		conn, err := gossh.Dial("tcp", h.addr, &gossh.ClientConfig{User: user, Auth: []gossh.AuthMethod{gossh.Password(testPassphrase)},
			HostKeyCallback: gossh.FixedHostKey(h.srv.HostKey())})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		c, err := sftp.NewClient(conn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	if _, err := dial(id).Stat("/mine.csv"); err != nil {
		t.Errorf("the folder named by the user: %v", err)
	}
	for _, user := range []string{"participant", "pass-0123456789abcdeX", "pass-ffffffffffffffff"} {
		if _, err := dial(user).Stat("/mine.csv"); err == nil {
			t.Errorf("user %q reached another session's folder", user)
		}
	}
}
