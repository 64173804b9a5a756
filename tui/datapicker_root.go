package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// resolveRoot is dir made absolute with every symlink resolved: the prefix
// every picked path must have once its own symlinks are resolved.
func resolveRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("data root %s: %w", dir, err)
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("data root %s: %w", dir, err)
	}
	if st, err := os.Stat(r); err != nil || !st.IsDir() {
		return "", fmt.Errorf("data root %s is not a folder", dir)
	}
	return r, nil
}

// within reports whether path, its symlinks resolved, lies in root (already
// resolved). Every path is within an empty root; a path that cannot be
// resolved (missing, a dangling link) is within none.
func within(root, path string) bool {
	if root == "" {
		return true
	}
	r, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	if r, err = filepath.Abs(r); err != nil {
		return false
	}
	rel, err := filepath.Rel(root, r)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// errOutsideRoot is the refusal of a path that leaves the data root.
var errOutsideRoot = errors.New("outside the data root")

// checkPath refuses a path that resolves outside the data root.
func (p *dataPicker) checkPath(path string) error {
	if !within(p.root, path) {
		return fmt.Errorf("%s: %w", p.display(path), errOutsideRoot)
	}
	return nil
}

// display is path as the user sees it: relative to the data root when
// there is one, so a served session never shows the server's folders.
func (p *dataPicker) display(path string) string {
	if p.root == "" {
		return path
	}
	rel, err := filepath.Rel(p.root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.Base(path)
	}
	if rel == "." {
		return "/"
	}
	return "/" + filepath.ToSlash(rel)
}
