package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// dialPass logs in with the passphrase as user and opens SFTP.
func dialPass(t *testing.T, h *harness, user string) (*sftp.Client, error) {
	conn, err := gossh.Dial("tcp", h.addr, &gossh.ClientConfig{User: user, Auth: []gossh.AuthMethod{gossh.Password(testPassphrase)},
		HostKeyCallback: gossh.FixedHostKey(h.srv.HostKey())})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { conn.Close() })
	c, err := sftp.NewClient(conn)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	return c, nil
}

// TestPassphraseFolderByName: a passphrase login whose user name is an
// existing session folder's reaches that folder; a name of another form
// gets a new one; a folder name that does not exist is refused at login
// like a wrong passphrase; and the folder's name, a download secret, never
// appears in the logs.
func TestPassphraseFolderByName(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI(); c.AllowSFTP = true })
	id := "pass-0123456789abcdef"
	if err := os.MkdirAll(filepath.Join(h.stateDir, id), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.stateDir, id, "mine.csv"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := dialPass(t, h, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stat("/mine.csv"); err != nil {
		t.Errorf("the folder named by the user: %v", err)
	}
	for _, user := range []string{"participant", "pass-0123456789abcdeX"} {
		c, err := dialPass(t, h, user)
		if err != nil {
			t.Fatalf("user %q: %v", user, err)
		}
		if _, err := c.Stat("/mine.csv"); err == nil {
			t.Errorf("user %q reached another session's folder", user)
		}
	}
	if _, err := dialPass(t, h, "pass-ffffffffffffffff"); err == nil {
		t.Error("a folder name that does not exist got in")
	}
	if _, err := os.Stat(filepath.Join(h.stateDir, "pass-ffffffffffffffff")); err == nil {
		t.Error("the refused name's folder was made")
	}
	logs := h.logs.String()
	if !strings.Contains(logs, "unknown session folder") {
		t.Errorf("the refused folder name was not logged as a failure:\n%s", logs)
	}
	for _, secret := range []string{"0123456789abcdef", "ffffffffffffffff"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the logs show the folder name %s:\n%s", secret, logs)
		}
	}
}

// TestPassphraseCannotOpenOthersFolder: two participants who share the
// passphrase: B, logged in as itself, cannot reach A's folder by any path,
// and B's guesses at A's folder name are refused, counted, and after
// MaxFailures block B's address, so that even the right name is refused.
func TestPassphraseCannotOpenOthersFolder(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI(); c.AllowSFTP = true })
	a, err := dialPass(t, h, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadDir("/"); err != nil {
		t.Fatal(err)
	}
	folders, _ := filepath.Glob(filepath.Join(h.stateDir, "pass-*"))
	if len(folders) != 1 {
		t.Fatalf("folders %v, want A's one", folders)
	}
	aID := filepath.Base(folders[0])
	if err := os.WriteFile(filepath.Join(folders[0], "export.csv"), []byte("a's"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := dialPass(t, h, "bob")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/export.csv", "/../" + aID + "/export.csv", "../" + aID + "/export.csv", "/../../state/" + aID + "/export.csv"} {
		if f, err := b.Open(p); err == nil {
			body, _ := io.ReadAll(f)
			f.Close()
			t.Errorf("B opened %q and read %q", p, body)
		}
	}
	if _, err := b.ReadDir("/../" + aID); err == nil {
		t.Error("B listed A's folder")
	}
	// Guesses: wrong names of the folder form (3 = the harness's MaxFailures).
	for _, guess := range []string{"pass-0000000000000000", "pass-0000000000000001", "pass-0000000000000002"} {
		if _, err := dialPass(t, h, guess); err == nil {
			t.Fatalf("guess %s got in", guess)
		}
	}
	if _, err := dialPass(t, h, aID); err == nil {
		t.Error("after MaxFailures wrong folder names, the address still got in")
	}
}

// TestClassNeverNamesFolder: a participant who logged in as its folder's
// name (to find its session again) is not shown under that name, a
// download secret, on the class board.
func TestClassNeverNamesFolder(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.UI = stubUI() })
	id := "pass-0123456789abcdef"
	seat := h.srv.seat(&session{srv: h.srv, id: id, user: id})
	if seat == nil {
		t.Fatal("no seat")
	}
	if strings.Contains(seat.Name(), "0123") {
		t.Errorf("the board names the participant %q, its folder's name", seat.Name())
	}
	if strings.Contains(h.logs.String(), "0123456789abcdef") {
		t.Errorf("the logs show the folder name:\n%s", h.logs.String())
	}
}
