package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// run executes the command line and returns the exit code and both outputs.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errOut, LaunchTUI: func(_ context.Context, l *Loaded) error {
		out.WriteString("TUI " + l.Data.Source)
		return nil
	}}
	code = Execute(context.Background(), args, env)
	return code, out.String(), errOut.String()
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		desc string
		args []string
		want int
		msg  string // in stderr
	}{
		{"no arguments starts the TUI", nil, ExitOK, ""},
		{"unknown command", []string{"frobnicate"}, ExitUsage, "unknown command"},
		{"unknown flag", []string{"version", "--frob"}, ExitUsage, "unknown flag"},
		{"inspect without a path", []string{"data", "inspect"}, ExitUsage, "want a data set"},
		{"bad orientation", []string{"data", "inspect", "builtin:default", "--orientation", "sideways"}, ExitUsage, "orientation"},
		{"bad selection", []string{"data", "inspect", "builtin:default", "--selection", "pca"}, ExitUsage, "gene selection"},
		{"negative genes", []string{"data", "inspect", "builtin:default", "--genes", "-3"}, ExitUsage, "n top genes"},
		{"missing file", []string{"data", "inspect", "/nonexistent/dpscope"}, ExitRuntime, "/nonexistent/dpscope"},
		{"unknown builtin", []string{"data", "inspect", "builtin:nope"}, ExitRuntime, "nope"},
		{"help", []string{"--help"}, ExitOK, ""},
		{"data without subcommand", []string{"data"}, ExitUsage, "subcommand"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != tc.want {
				t.Errorf("Execute(%q) = %d, want %d; stderr: %s", tc.args, code, tc.want, stderr)
			}
			if tc.msg != "" && !strings.Contains(stderr, tc.msg) {
				t.Errorf("Execute(%q) stderr = %q, want it to mention %q", tc.args, stderr, tc.msg)
			}
		})
	}
}

func TestInspectBuiltinJSON(t *testing.T) {
	code, stdout, stderr := run(t, "data", "inspect", "builtin:default", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Cells, Genes int
		ValueType    string `json:"value_type"`
		Classes      []struct {
			Name  string
			Cells int
		}
		Preprocessing []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	total := 0
	for _, c := range s.Classes {
		total += c.Cells
	}
	if s.Cells != 2000 || s.Genes != 2000 || s.ValueType != "counts" || len(s.Classes) != 8 || total != s.Cells {
		t.Errorf("inspect builtin:default = %d cells, %d genes, %s, %d classes summing to %d; want 2000, 2000, counts, 8 summing to 2000",
			s.Cells, s.Genes, s.ValueType, len(s.Classes), total)
	}
	if len(s.Preprocessing) != 7 {
		t.Errorf("inspect lists %d preprocessing steps, want 7", len(s.Preprocessing))
	}
}

func TestInspectTable(t *testing.T) {
	dir := filepath.Join(fixture.SharedData(t), "biase")
	code, stdout, stderr := run(t, "data", "inspect", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"cells", "56", "2000", "non-counts", "log-transformed already", "labels"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("inspect biase table lacks %q:\n%s", want, stdout)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := run(t, "version", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if v.GoVersion == "" || v.Version == "" || (v.BLAS != "openblas" && v.BLAS != "gonum") || v.BLASThreads < 1 {
		t.Errorf("version = %+v, want a version, a Go version, a backend and ≥ 1 thread", v)
	}
	if !strings.HasPrefix(v.HDF5, "libhdf5 1.") && !strings.Contains(v.HDF5, "apt-get install libhdf5-103-1") {
		t.Errorf("version's hdf5 = %q, want the library's version or how to install it", v.HDF5)
	}
}

func TestDefaultLaunchesTUIOnDefaultData(t *testing.T) {
	code, stdout, _ := run(t)
	if code != ExitOK || stdout != "TUI builtin:default" {
		t.Errorf("dpscope with no arguments: exit %d, launched %q; want 0 and the TUI on builtin:default", code, stdout)
	}
}
