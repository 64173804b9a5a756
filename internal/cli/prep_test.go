package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// loader is a fake engine that loads its data as every engine does
// (Config.LoadData) and reports the shape, so a test sees what reached it.
type loader struct{ cfg core.Config }

func (l loader) Run(ctx context.Context, ctl *core.Control) error {
	p, err := l.cfg.LoadData()
	if err != nil {
		return err
	}
	ctl.Emit(core.DataEventOf(p.Data))
	ctl.Emit(core.StageEvent{Stage: 1, Name: "only", Steps: 1})
	if _, err := ctl.Checkpoint(ctx); err != nil {
		return err
	}
	ctl.Emit(core.StepEvent{Stage: 1, Epoch: 1, Step: 1, Loss: 1})
	return nil
}

func init() {
	core.Register(core.Method{Name: "test-loader", Family: core.FamilyDPSGD, New: func(cfg core.Config) (core.Engine, error) { return loader{cfg}, nil }})
}

// summaryOf returns the last JSON line of a run --json.
func summaryOf(t *testing.T, stdout string) runSummary {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var s runSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		t.Fatalf("summary line %q: %v", lines[len(lines)-1], err)
	}
	return s
}

// TestPreprocessingFlagsReachTheRun is issue 14 point 9: the preprocessing
// flags (and a config file's [preprocess] table) reach the engine, and the
// summary says what matrix it trained on.
func TestPreprocessingFlagsReachTheRun(t *testing.T) {
	code, stdout, stderr := run(t, "run", "--method", "test-loader", "--mode", "nonprivate", "--json", "--genes", "50", "--min-cells", "5")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s := summaryOf(t, stdout)
	if s.Data.Spec != "builtin:default" || s.Data.Cells != 2000 || s.Data.Genes != 50 || s.Data.Classes != 8 {
		t.Errorf("summary data = %+v, want builtin:default, 2000 cells × 50 genes, 8 classes", s.Data)
	}
	if s.Status != "finished" || s.Reason != "" {
		t.Errorf("status = %q (%q), want finished", s.Status, s.Reason)
	}

	cfgFile := filepath.Join(t.TempDir(), "run.toml")
	if err := os.WriteFile(cfgFile, []byte("method = \"test-loader\"\nmode = \"nonprivate\"\n[preprocess]\ngenes = 40\nmin_genes = 200\nmin_cells = 3\nselection = \"hvg\"\nmax_value = 10.0\nmax_cell_loss = 0.05\nscale = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, "run", "--config", cfgFile, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if g := summaryOf(t, stdout).Data.Genes; g != 40 {
		t.Errorf("genes from the config file's [preprocess] = %d, want 40", g)
	}
	code, stdout, _ = run(t, "run", "--config", cfgFile, "--json", "--genes", "30")
	if g := summaryOf(t, stdout).Data.Genes; code != ExitOK || g != 30 {
		t.Errorf("--genes 30 over the file's 40 gave %d genes (exit %d), want 30", g, code)
	}
	code, _, stderr = run(t, "run", "--method", "test-loader", "--mode", "nonprivate", "--max-value", "-2")
	if code != ExitUsage || !strings.Contains(stderr, "max value is -2") {
		t.Errorf("--max-value -2: exit %d, stderr %q, want a usage error naming the value", code, stderr)
	}
	code, _, stderr = run(t, "run", "--method", "test-loader", "--mode", "nonprivate", "--labels", "l.tsv")
	if code != ExitUsage || !strings.Contains(stderr, "l.tsv") {
		t.Errorf("--labels on a built-in set: exit %d, stderr %q, want a usage error naming the file", code, stderr)
	}
}

// TestRootMaxValueAndDeprecatedClip: the interface's flags reach its runs
// (Loaded.Config); --clip still sets the value cap, with a warning.
func TestRootMaxValueAndDeprecatedClip(t *testing.T) {
	var got *Loaded
	launch := func(_ context.Context, l *Loaded) error { got = l; return nil }
	for _, tc := range []struct {
		args []string
		max  float64
		warn bool
	}{
		{[]string{"--max-value", "4", "--genes", "60"}, 4, false},
		{[]string{"--clip", "5", "--genes", "60"}, 5, true},
	} {
		var out, errOut strings.Builder
		code := Execute(context.Background(), tc.args, Env{Stdout: &out, Stderr: &errOut, LaunchTUI: launch})
		if code != ExitOK || got == nil {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut.String())
		}
		pre := got.Config.Preprocess
		if pre == nil || pre.MaxValue != tc.max || pre.NTopGenes != 60 || got.Prep.Genes != 60 {
			t.Errorf("%v: run settings %+v (matrix %d genes), want max value %v and 60 genes", tc.args, pre, got.Prep.Genes, tc.max)
		}
		if warned := strings.Contains(errOut.String(), "--clip is deprecated, use --max-value"); warned != tc.warn {
			t.Errorf("%v: stderr %q, want the deprecation warning: %v", tc.args, errOut.String(), tc.warn)
		}
	}
}
