package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/datasets"
)

// h5Fixture returns the path of an .h5ad fixture of package datasets, or
// skips the test when libhdf5 cannot open it (failing instead with
// DPSCOPE_REQUIRE_HDF5=1, as CI sets).
func h5Fixture(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("..", "..", "datasets", "testdata", "h5", name)
	if _, err := datasets.Open(path, datasets.OpenOptions{}); err != nil && strings.Contains(err.Error(), "libhdf5 is not available") {
		if os.Getenv("DPSCOPE_REQUIRE_HDF5") == "1" {
			t.Fatalf("libhdf5 required (DPSCOPE_REQUIRE_HDF5=1): %v", err)
		}
		t.Skipf("libhdf5 not loaded (apt-get install libhdf5-103-1): %v", err)
	}
	return path
}

// TestH5ADFlags: --labels-column and --use-raw reach data inspect and a
// run's engine (through core.Config), and are usage errors where they
// cannot apply.
func TestH5ADFlags(t *testing.T) {
	path := h5Fixture(t, "pbmc_csr.h5ad")
	t.Setenv("DPSCOPE_CACHE", "off")
	code, stdout, stderr := run(t, "data", "inspect", path, "--labels-column", "cell_type", "--use-raw", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s datasets.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Cells != 72 || len(s.Classes) != 8 || s.ValueType != "counts" || s.LabelJoin == nil || !strings.HasSuffix(s.LabelJoin.File, ":obs/cell_type") {
		t.Errorf("inspect: %d cells, %d classes, %s, join %+v; want 72 cells, 8 classes, counts from obs/cell_type", s.Cells, len(s.Classes), s.ValueType, s.LabelJoin)
	}

	code, stdout, stderr = run(t, "run", "--method", "test-loader", "--mode", "nonprivate", "--json", "--data", path, "--labels-column", "cell_type", "--use-raw")
	if code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if d := summaryOf(t, stdout).Data; d.Cells != 72 || d.Classes != 8 {
		t.Errorf("run data %+v, want 72 cells in 8 classes", d)
	}

	code, _, stderr = run(t, "run", "--method", "test-loader", "--mode", "nonprivate", "--labels-column", "cell_type")
	if code != ExitUsage || !strings.Contains(stderr, "builtin:default") {
		t.Errorf("--labels-column on a built-in set: exit %d, stderr %q, want a usage error", code, stderr)
	}
	code, _, stderr = run(t, "data", "inspect", path, "--labels-column", "nope")
	if code != ExitRuntime || !strings.Contains(stderr, `no column "nope"`) || !strings.Contains(stderr, "cell_type") {
		t.Errorf("--labels-column nope: exit %d, stderr %q, want an error listing the obs columns", code, stderr)
	}
}
