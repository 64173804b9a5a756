package tui

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points the user cache (reference lines) and the user data dir
// (session autosaves) at a temporary folder, so tests neither read figures
// cached by an older build nor leave files in the user's folders.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dpscope-tui-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	os.Setenv("XDG_DATA_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
