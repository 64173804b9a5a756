package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/dpscope/dpscope"

// deps returns every package the packages matching pattern depend on,
// transitively, as `go list -deps` reports them.
func deps(t *testing.T, pattern string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pattern).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pattern, err)
	}
	return strings.Fields(string(out))
}

func TestDependencyDirection(t *testing.T) {
	tests := []struct {
		desc      string
		pattern   string
		forbidden func(dep string) bool
	}{
		{
			desc:    "engine, accountant and datasets know nothing of terminals",
			pattern: module + "/core/...",
			forbidden: func(d string) bool {
				return strings.HasPrefix(d, "charm.land/") || strings.HasPrefix(d, "github.com/charmbracelet/") ||
					strings.HasPrefix(d, module+"/tui") || strings.HasPrefix(d, module+"/internal/cli")
			},
		},
		{
			desc:    "accountant imports none of our packages",
			pattern: module + "/accountant/...",
			forbidden: func(d string) bool {
				return strings.HasPrefix(d, module+"/") && !strings.HasPrefix(d, module+"/accountant")
			},
		},
		{
			desc:    "datasets imports only core/compute and assets of ours",
			pattern: module + "/datasets/...",
			forbidden: func(d string) bool {
				if !strings.HasPrefix(d, module+"/") {
					return strings.HasPrefix(d, "charm.land/")
				}
				return !strings.HasPrefix(d, module+"/datasets") && d != module+"/core/compute" && d != module+"/assets"
			},
		},
		{
			desc:    "assets is a leaf",
			pattern: module + "/assets",
			forbidden: func(d string) bool {
				return strings.HasPrefix(d, module+"/") && d != module+"/assets"
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			for _, d := range deps(t, tc.pattern) {
				if tc.forbidden(d) {
					t.Errorf("%s depends on %s", tc.pattern, d)
				}
			}
		})
	}
}
