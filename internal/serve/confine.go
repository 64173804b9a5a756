package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Confine resolves p inside the folder root and returns the real path
// (absolute, every symbolic link resolved), or an error when that path is
// outside root. A relative p is taken relative to root. A path that does not
// exist yet (an --out folder) is resolved through its nearest existing
// parent, so a link anywhere on the way is followed before the check.
// The error names p as the user gave it, never the real path behind root.
func Confine(root, p string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("%s: no folder is open to this session", p)
	}
	if p == "" {
		return "", errors.New("empty path")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%q: a path cannot hold a NUL byte", p)
	}
	realRoot, err := resolve(root)
	if err != nil {
		return "", fmt.Errorf("folder %s: %w", root, err)
	}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(realRoot, p)
	}
	real, err := resolve(full)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is outside the folder open to this session", p)
	}
	return real, nil
}

// resolve is filepath.EvalSymlinks of an absolute path that may not exist
// yet: the missing tail is joined, lexically, to its nearest existing
// parent's real path (a missing name holds no link to follow).
func resolve(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var tail []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, tail...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		// A dangling link is not a missing name: resolving its parent
		// and appending its name would skip the link's target.
		if _, lerr := os.Lstat(p); lerr == nil {
			return "", fmt.Errorf("%s is a link to nowhere", filepath.Base(p))
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}
