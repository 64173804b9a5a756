package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
			// internal/errkind is a leaf (the rule below): its one-sentence
			// errors are shared, not a dependency on the engine's side.
			desc:    "datasets imports only core/compute, assets and internal/errkind of ours",
			pattern: module + "/datasets/...",
			forbidden: func(d string) bool {
				if !strings.HasPrefix(d, module+"/") {
					return strings.HasPrefix(d, "charm.land/")
				}
				return !strings.HasPrefix(d, module+"/datasets") && d != module+"/core/compute" && d != module+"/assets" && d != module+"/internal/errkind"
			},
		},
		{
			// The faces know methods only through core's registry: a new
			// method is one package and one blank import in main.go.
			desc:      "tui and internal/cli depend on no method package",
			pattern:   module + "/tui/...",
			forbidden: methodSide,
		},
		{
			desc:      "internal/cli depends on no method package",
			pattern:   module + "/internal/cli",
			forbidden: methodSide,
		},
		{
			desc:    "internal/plot imports none of our packages",
			pattern: module + "/internal/plot",
			forbidden: func(d string) bool {
				return strings.HasPrefix(d, module+"/") && d != module+"/internal/plot"
			},
		},
		{
			desc:    "internal/errkind imports none of our packages",
			pattern: module + "/internal/errkind",
			forbidden: func(d string) bool {
				return strings.HasPrefix(d, module+"/") && d != module+"/internal/errkind"
			},
		},
		{
			desc:    "internal/memo imports none of our packages",
			pattern: module + "/internal/memo",
			forbidden: func(d string) bool {
				return strings.HasPrefix(d, module+"/") && d != module+"/internal/memo"
			},
		},
		{
			desc:    "internal/class imports none of our packages",
			pattern: module + "/internal/class",
			forbidden: func(d string) bool {
				return strings.HasPrefix(d, module+"/") && d != module+"/internal/class"
			},
		},
		{
			desc:    "internal/report imports none of our packages",
			pattern: module + "/internal/report",
			forbidden: func(d string) bool {
				return strings.HasPrefix(d, module+"/") && d != module+"/internal/report"
			},
		},
		{
			desc:      "internal/serve depends on no method package and not on tui",
			pattern:   module + "/internal/serve",
			forbidden: func(d string) bool { return methodSide(d) || strings.HasPrefix(d, module+"/tui") },
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

// faceImports are the packages of ours the faces may import directly:
// core (the registry, Config, events), accountant, datasets and assets,
// besides their own subpackages. core/compute is the matrix backend, no
// method: `dpscope version` reports it. core/sweep (grids of runs through
// core.Start), core/reference (the B1 line) and core/safe (a panic turned
// into an error) serve every method alike and know none by name; core/audit
// (the one-run bound and its canaries) scores any method's game, the fake
// engine's too.
// internal/plot and internal/report draw figures and write reports from
// plain values, and internal/memo is a shared cache of computations (the
// Planner's accountant passes, shared by every served session); they
// import none of ours (checked below), as does internal/class, the
// workshop's class board that the served sessions share. internal/serve is
// `dpscope serve`'s SSH server, which internal/cli wires: it is a face
// itself (checked below) and knows no method either.
var faceImports = []string{"core", "accountant", "datasets", "assets", "core/compute", "core/sweep", "core/reference", "core/safe", "core/audit", "internal/memo", "internal/class", "internal/plot", "internal/report", "internal/serve"}

// serviceSide are the packages under core/ that the faces may depend on,
// directly or not: the contract's services and the shared algorithms they
// use (core/reference runs PCA and k-means from core/cluster), none of
// which registers or names a method.
var serviceSide = []string{"core/compute", "core/sweep", "core/reference", "core/safe", "core/cluster", "core/audit"}

// methodSide reports whether d is a method package or a method's internals
// (anything under core/ but the services).
func methodSide(d string) bool {
	rel, ok := strings.CutPrefix(d, module+"/")
	return ok && strings.HasPrefix(rel, "core/") && !slices.Contains(serviceSide, rel)
}

// TestFacesImportOnlyTheEngineContract is the farm-style check of issue 15:
// every import of ours in tui/... and internal/cli names an allowed package.
func TestFacesImportOnlyTheEngineContract(t *testing.T) {
	for _, pattern := range []string{module + "/tui/...", module + "/internal/cli", module + "/internal/serve"} {
		out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, pattern).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pattern, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, imports, _ := strings.Cut(line, ":")
			for _, imp := range strings.Fields(imports) {
				rel, ours := strings.CutPrefix(imp, module+"/")
				if !ours || strings.HasPrefix(rel, "tui/") || rel == "internal/cli" {
					continue
				}
				allowed := false
				for _, a := range faceImports {
					allowed = allowed || rel == a
				}
				if !allowed {
					t.Errorf("%s imports %s; the faces may import only %v of ours", pkg, imp, faceImports)
				}
			}
		}
	}
}

// TestMethodsLiveUnderCoreMethod keeps issue 15's layout: the packages main
// imports for their registration (every method) live under core/method/,
// so a reader finds every method in one folder.
func TestMethodsLiveUnderCoreMethod(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, module).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", module, err)
	}
	methods := 0
	for _, imp := range strings.Fields(string(out)) {
		rel, ours := strings.CutPrefix(imp, module+"/")
		if !ours || !methodSide(imp) {
			continue
		}
		if !strings.HasPrefix(rel, "core/method/") {
			t.Errorf("main imports %s, a method-side package outside core/method/", imp)
		}
		methods++
	}
	if methods < 5 {
		t.Errorf("main imports %d method packages under core/method/, want every method (≥ 5)", methods)
	}
}

// skeleton is the file layout every method package shares (issue 15.5), so
// a reader finds the same part of any method in the same file.
var skeleton = []string{"engine.go", "options.go", "privacy.go", "guarantee.go", "patch.go", "doc.go"}

// TestMethodPackagesShareTheSkeleton checks every package under
// core/method/ for the skeleton's files.
func TestMethodPackagesShareTheSkeleton(t *testing.T) {
	root := filepath.Join("..", "..", "core", "method")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		for _, f := range skeleton {
			if _, err := os.Stat(filepath.Join(root, e.Name(), f)); err != nil {
				t.Errorf("core/method/%s lacks %s (the method skeleton: %v)", e.Name(), f, skeleton)
			}
		}
	}
}
