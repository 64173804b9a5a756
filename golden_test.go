package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/internal/cli"
)

// updateGolden rewrites testdata/golden from the current code. Only for a
// change that is meant to change results; say so in the commit.
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden")

// goldenTol is the relative tolerance of a number in a golden summary: the
// BLAS backend (OpenBLAS in CI, gonum elsewhere) moves the last digits of
// float32 products, never more.
const goldenTol = 1e-6

// jsonDiff returns the path of the first difference between two decoded
// JSON values, numbers compared within goldenTol, or "" when they agree.
func jsonDiff(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return path + " (keys)"
		}
		for k, wv := range w {
			if d := jsonDiff(path+"."+k, g[k], wv); d != "" {
				return d
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path + " (length)"
		}
		for i := range w {
			if d := jsonDiff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); d != "" {
				return d
			}
		}
	case float64:
		g, ok := got.(float64)
		if !ok || math.Abs(g-w) > goldenTol*max(math.Abs(w), 1e-12) {
			return path
		}
	default:
		if got != want {
			return path
		}
	}
	return ""
}

// goldenCases are short runs of every method and mode on builtin:default
// (dpmd on a small synthetic circle) with a fixed seed. Their summaries
// pin the engines' results: a refactor must leave every figure identical.
var goldenCases = []struct {
	name string
	args []string
	long bool // runs for more than a few seconds on two cores
}{
	{"dcan-nonprivate", []string{"--method", "dcan", "--mode", "nonprivate", "--q", "0.5", "--epochs", "1,1"}, true},
	{"dcan-paper", []string{"--method", "dcan", "--mode", "paper", "--layers", "1-3", "--q", "0.5", "--epochs", "1,1"}, true},
	{"dcan-sound", []string{"--method", "dcan", "--mode", "sound", "--q", "0.5", "--epochs", "1,1"}, true},
	// dcan-sound, the default method (the redesigned sound DP-DCAN) at
	// ε = 8 and at ε = 1, where its staged split leaves the network out.
	{"dcansound-sound", []string{"--method", "dcan-sound", "--mode", "sound", "--epsilon", "8"}, true},
	{"dcansound-sound-eps1", []string{"--method", "dcan-sound", "--mode", "sound", "--epsilon", "1"}, true},
	{"dpmd-paper", []string{"--method", "dpmd", "--mode", "paper", "--manifold", "circle", "--n", "2000", "--queries", "50", "--T", "1", "--epsilon", "1"}, false},
	{"dpmd-sound", []string{"--method", "dpmd", "--mode", "sound", "--manifold", "circle", "--n", "2000", "--queries", "50", "--T", "1", "--epsilon", "1"}, false},
	{"dpmd-nonprivate", []string{"--method", "dpmd", "--mode", "nonprivate", "--manifold", "circle", "--n", "2000", "--queries", "50", "--T", "1"}, false},
	{"fl-nonprivate", []string{"--method", "fl", "--mode", "nonprivate", "--clients", "2", "--epochs", "1,1"}, true},
	{"fl-dp-paper", []string{"--method", "fl-dp", "--mode", "paper", "--clients", "2", "--epochs", "1,1", "--epsilon", "5"}, true},
	{"ppml-omics-paper", []string{"--method", "ppml-omics", "--mode", "paper", "--clients", "2", "--epochs", "1,1", "--epsilon", "5"}, true},
	{"ppml-omics-sound", []string{"--method", "ppml-omics", "--mode", "sound", "--clients", "2", "--epochs", "1,1", "--epsilon", "5", "--opt", "protocol=fisher-yates"}, true},
	{"fedsc-nonprivate", []string{"--method", "fedsc", "--mode", "nonprivate", "--clients", "2", "--epochs", "1,1"}, true},
	{"fedsc-sound", []string{"--method", "fedsc", "--mode", "sound", "--clients", "2", "--epochs", "1,1", "--epsilon", "5", "--opt", "split=iid"}, true},
}

// TestGoldenSummaries runs every method and mode and compares its `run
// --json` summary (less the wall-clock seconds, the build's version and its BLAS)
// with testdata/golden. The long cases need DPSCOPE_GOLDEN=1 and
// DPSCOPE_BLAS=go (about a minute on two cores); the short form runs
// dpmd's on either backend.
func TestGoldenSummaries(t *testing.T) {
	long := os.Getenv("DPSCOPE_GOLDEN") != "" || *updateGolden
	if long && os.Getenv(compute.EnvBLAS) != "go" {
		// Training amplifies the last digits OpenBLAS moves: the long
		// cases (DCAN, the federated methods) are pinned on gonum's kernels.
		t.Fatalf("the long golden cases are recorded with gonum's kernels: run with %s=go", compute.EnvBLAS)
	}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && !long {
				t.Skip("set DPSCOPE_GOLDEN=1 to run")
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"run", "--json", "--no-reference", "--seed", "7"}, tc.args...)
			code := cli.Execute(context.Background(), args, cli.Env{Stdout: &stdout, Stderr: &stderr})
			if code != cli.ExitOK {
				t.Fatalf("dpscope %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			var sum map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
				t.Fatalf("summary line: %v", err)
			}
			// Wall-clock time and the build's version are not results.
			delete(sum, "seconds")
			delete(sum, "dpscope_version")
			delete(sum, "blas")
			got, err := json.MarshalIndent(sum, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", tc.name+".json")
			if *updateGolden {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update-golden on the reference code)", err)
			}
			var wantSum map[string]any
			if err := json.Unmarshal(want, &wantSum); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if where := jsonDiff("", sum, wantSum); where != "" {
				t.Errorf("summary of %s differs from %s at %s:\n got %s\nwant %s", tc.name, path, where, got, want)
			}
		})
	}
}
