package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jail builds root/{data.csv, sub/x} and, outside it, secret.txt with links
// from inside pointing out, and returns root and the outside folder.
func jail(t testing.TB) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "data.csv"), filepath.Join(root, "sub", "x"), filepath.Join(outside, "secret.txt")} {
		if err := os.WriteFile(f, []byte("1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link-out")))
	must(os.Symlink(outside, filepath.Join(root, "dir-out")))
	must(os.Symlink(filepath.Join(root, "sub", "x"), filepath.Join(root, "link-in")))
	must(os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "dangling")))
	return root, outside
}

func TestConfine(t *testing.T) {
	root, outside := jail(t)
	realRoot, _ := filepath.EvalSymlinks(root)
	ok := map[string]string{
		"data.csv":                      filepath.Join(realRoot, "data.csv"),
		"sub/../data.csv":               filepath.Join(realRoot, "data.csv"),
		filepath.Join(root, "sub", "x"): filepath.Join(realRoot, "sub", "x"),
		"link-in":                       filepath.Join(realRoot, "sub", "x"),
		"new/folder":                    filepath.Join(realRoot, "new", "folder"), // --out that does not exist yet
		".":                             realRoot,
	}
	for p, want := range ok {
		got, err := Confine(root, p)
		if err != nil || got != want {
			t.Errorf("Confine(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	refused := []string{
		"../outside/secret.txt",
		filepath.Join(outside, "secret.txt"),
		"/etc/passwd",
		"link-out",           // a link to a file outside
		"dir-out/secret.txt", // through a linked folder
		"dir-out/new/out",    // a new path under a linked folder
		"dangling",           // a link to nowhere: refused, never followed later
		"sub/../../outside",
		"",
		"a\x00b",
	}
	for _, p := range refused {
		if got, err := Confine(root, p); err == nil {
			t.Errorf("Confine(%q) = %q, want a refusal", p, got)
		} else if strings.Contains(err.Error(), outside) && p != filepath.Join(outside, "secret.txt") {
			t.Errorf("Confine(%q): the error %q reveals the real path outside", p, err)
		}
	}
	if _, err := Confine("", "data.csv"); err == nil {
		t.Error("no root: want a refusal")
	}
}

func FuzzConfine(f *testing.F) {
	root, _ := jail(f)
	realRoot, _ := filepath.EvalSymlinks(root)
	for _, s := range []string{"data.csv", "../x", "dir-out/a", "link-in", "/etc", "sub/../..//root/data.csv", "./././sub"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := Confine(root, p)
		if err != nil {
			return
		}
		rel, rerr := filepath.Rel(realRoot, got)
		if rerr != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			t.Fatalf("Confine(%q) = %q, outside %s", p, got, realRoot)
		}
		// The result is real: resolving it again changes nothing that
		// exists.
		if real, err := filepath.EvalSymlinks(got); err == nil && real != got {
			t.Fatalf("Confine(%q) = %q, which still resolves to %q", p, got, real)
		}
	})
}
