package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
)

// graded is a fake method whose ARI is known in advance: ε/(ε+1) + seed/100
// in private modes, 0.9 + seed/100 without privacy; NMI is ARI + 0.1. It
// spends exactly its target.
type graded struct{ cfg core.Config }

func (g graded) Run(ctx context.Context, ctl *core.Control) error {
	if _, err := ctl.Checkpoint(ctx); err != nil {
		return err
	}
	ari := 0.9
	status := core.GuaranteeNone
	if g.cfg.Mode != core.ModeNonPrivate {
		status = core.GuaranteeFormal
		ari = g.cfg.Epsilon / (g.cfg.Epsilon + 1)
		ctl.Emit(core.BudgetEvent{Step: 1, Delta: g.cfg.Delta, Spent: []core.EpsilonValue{{Accountant: "RDP", Epsilon: g.cfg.Epsilon}}})
	}
	ctl.Emit(core.GuaranteeEvent{Status: status, Reasons: []string{"test"}})
	ctl.Emit(core.StepEvent{Stage: 1, Epoch: 1, Step: 1, Loss: 1})
	ari += float64(g.cfg.Seed) / 100
	ctl.Emit(core.MetricsEvent{Stage: 1, Epoch: 1, Step: 1, Values: []core.NamedValue{{Name: "ARI", Value: ari}, {Name: "NMI", Value: ari + 0.1}}})
	return nil
}

func init() {
	core.Register(core.Method{Name: "test-graded", Family: core.FamilyDPSGD, New: func(cfg core.Config) (core.Engine, error) { return graded{cfg}, nil }})
}

func sweepJSON(t *testing.T, args ...string) (code int, lines []map[string]json.RawMessage, stderr string) {
	t.Helper()
	code, stdout, stderr := run(t, append([]string{"sweep", "--method", "test-graded", "--json"}, args...)...)
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if l == "" {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return code, lines, stderr
}

// TestSweepGroups checks the grid (nonprivate runs once per seed, not once
// per ε), the per-run lines, and the means, sds and totals of the last line.
func TestSweepGroups(t *testing.T) {
	code, lines, stderr := sweepJSON(t, "--mode", "sound,nonprivate", "--epsilon", "1,3", "--seeds", "0-2", "--jobs", "2")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(lines) != 3*2+3+1 {
		t.Fatalf("%d lines, want 9 runs and a summary", len(lines))
	}
	seeds := map[string]int{}
	for _, l := range lines[:9] {
		seeds[string(l["seed"])]++
		if string(l["type"]) != `"summary"` {
			t.Errorf("run line type %s", l["type"])
		}
	}
	if seeds["0"] != 3 || seeds["1"] != 3 || seeds["2"] != 3 {
		t.Errorf("seeds per run line: %v", seeds)
	}
	var last struct {
		Sweep []struct {
			Method, Mode string
			Epsilon      float64
			N            int
			ARIMean      *float64 `json:"ari_mean"`
			ARISD        *float64 `json:"ari_sd"`
			NMIMean      *float64 `json:"nmi_mean"`
			SpentMax     float64  `json:"epsilon_spent_max"`
		}
		Exploration sweep.Cost
	}
	b, _ := json.Marshal(lines[9])
	if err := json.Unmarshal(b, &last); err != nil {
		t.Fatal(err)
	}
	if len(last.Sweep) != 3 {
		t.Fatalf("%d groups, want 3: %s", len(last.Sweep), b)
	}
	for i, want := range []struct {
		mode     string
		eps, ari float64
	}{{"sound", 1, 0.5 + 0.01}, {"sound", 3, 0.75 + 0.01}, {"nonprivate", 0, 0.9 + 0.01}} {
		g := last.Sweep[i]
		if g.Mode != want.mode || g.Epsilon != want.eps || g.N != 3 {
			t.Errorf("group %d: %s ε %g n %d, want %s ε %g n 3", i, g.Mode, g.Epsilon, g.N, want.mode, want.eps)
			continue
		}
		// Seeds 0, 1, 2 add 0, 0.01, 0.02: mean +0.01, sd 0.01.
		if math.Abs(*g.ARIMean-want.ari) > 1e-12 || math.Abs(*g.ARISD-0.01) > 1e-12 || math.Abs(*g.NMIMean-want.ari-0.1) > 1e-12 {
			t.Errorf("group %d: ARI %v ± %v NMI %v, want %v ± 0.01, NMI %v", i, *g.ARIMean, *g.ARISD, *g.NMIMean, want.ari, want.ari+0.1)
		}
		if want.mode == "sound" && g.SpentMax != want.eps {
			t.Errorf("group %d: max ε spent %v, want %v", i, g.SpentMax, want.eps)
		}
	}
	if e := last.Exploration; e.PrivateRuns != 6 || math.Abs(e.EpsilonTotal-12) > 1e-12 || math.Abs(e.DeltaTotal-6e-5) > 1e-15 {
		t.Errorf("exploration %+v, want 6 runs, ε 12, δ 6e-5", e)
	}
}

// TestSweepResume: a second identical sweep into the same folder runs
// nothing again and reports the same groups; another grid is refused, as is
// a folder that is not a sweep's.
func TestSweepResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	args := []string{"--mode", "sound", "--epsilon", "2", "--seeds", "0-1", "--out", dir}
	code, first, stderr := sweepJSON(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "runs"))
	if len(entries) != 2 {
		t.Fatalf("%d run files, want 2", len(entries))
	}
	// Remove one run: resuming does exactly that one.
	os.Remove(filepath.Join(dir, "runs", entries[0].Name()))
	code, second, stderr := sweepJSON(t, args...)
	if code != ExitOK {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if len(second) != 2 {
		t.Errorf("resume printed %d lines, want 1 run and the summary", len(second))
	}
	if a, b := string(first[len(first)-1]["sweep"]), string(second[len(second)-1]["sweep"]); a != b {
		t.Errorf("resumed summary differs:\n%s\n%s", a, b)
	}
	code, _, stderr = sweepJSON(t, "--mode", "sound", "--epsilon", "4", "--seeds", "0-1", "--out", dir)
	if code != ExitUsage || !strings.Contains(stderr, "another sweep") {
		t.Errorf("other grid: exit %d, %q", code, stderr)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "summary.json"), []byte("{}"), 0o644)
	code, _, stderr = sweepJSON(t, "--mode", "sound", "--epsilon", "4", "--out", other)
	if code != ExitUsage || !strings.Contains(stderr, "no sweep manifest") {
		t.Errorf("foreign folder: exit %d, %q", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "summary.json")); string(b) != "{}" {
		t.Error("foreign folder's file changed")
	}
}

func TestSweepTable(t *testing.T) {
	code, stdout, stderr := run(t, "sweep", "--method", "test-graded", "--mode", "sound", "--epsilon", "1", "--seeds", "0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"test-graded", "0.500 ± 0.000", "basic composition", "exploration only"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
}

// TestOptionsText pins the table's options column: key=value pairs in key
// order, the form --opt takes, not Go's map[k:v].
func TestOptionsText(t *testing.T) {
	got := optionsText(map[string]string{"under": "auto", "p": "5", "genes": "auto:18"})
	if want := "genes=auto:18 p=5 under=auto"; got != want {
		t.Errorf("optionsText = %q, want %q", got, want)
	}
}

func TestSweepInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut bytes.Buffer
	done := make(chan int)
	go func() {
		done <- Execute(ctx, []string{"sweep", "--method", "test-slow", "--mode", "sound", "--epsilon", "1", "--seeds", "0-3"}, Env{Stdout: &out, Stderr: &errOut})
	}()
	cancel()
	if code := <-done; (code != ExitRuntime && code != ExitInterrupted) || !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("exit %d, %q", code, errOut.String())
	}
}

func TestSweepUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--epsilon", "1,-2"}, `"-2"`},
		{[]string{"--epsilon", "1,,2"}, "empty items"},
		{[]string{"--epsilon", "NaN"}, `"NaN"`},
		{[]string{"--epsilon", "2,2"}, "twice"},
		{[]string{"--seeds", "4-2"}, `"4-2"`},
		{[]string{"--seeds", "-1"}, `"-1"`},
		{[]string{"--seeds", "18446744073709551615"}, "18446744073709551615"},
		{[]string{"--seeds", "0-99999999"}, "more than"},
		{[]string{"--jobs", "0"}, "--jobs is 0"},
		{[]string{"--opt", "=3"}, "KEY=VALUE"},
		{[]string{"--opt", "a=1", "--opt", "a=2"}, "twice"},
		{[]string{"--mode", "loud"}, "loud"},
		{[]string{"--delta", "2"}, "delta is 2"},
		{[]string{"--epochs", "1,x"}, "--epochs"},
		{[]string{"--genes", "0"}, "genes"},
		{[]string{"--orientation", "sideways"}, "sideways"},
		{[]string{"--data", "x.tsv", "--labels", "l.tsv", "--labels-column", "cell_type"}, "give one"},
	} {
		code, _, stderr := run(t, append([]string{"sweep", "--method", "test-graded"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want usage error naming %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestParseSeeds(t *testing.T) {
	got, err := parseSeeds("3, 0-2,2,9223372036854775807")
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{3, 0, 1, 2, 9223372036854775807}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// FuzzSweepFlags: the grid parsers never panic, and what they accept
// satisfies their own rules.
func FuzzSweepFlags(f *testing.F) {
	for _, s := range []string{"0-4", "1,2,3", "0.5,1,2", "a=1,2", "", ",", "9223372036854775807-9223372036854775807", "1e308,1e-308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if seeds, err := parseSeeds(s); err == nil {
			if len(seeds) == 0 || len(seeds) > maxSeeds {
				t.Errorf("parseSeeds(%q): %d seeds", s, len(seeds))
			}
			for _, v := range seeds {
				if v > math.MaxInt64 {
					t.Errorf("parseSeeds(%q): seed %d beyond 2⁶³−1", s, v)
				}
			}
		}
		if eps, err := parseEpsilons(s); err == nil {
			for _, v := range eps {
				if !(v > 0) || math.IsInf(v, 0) {
					t.Errorf("parseEpsilons(%q): %v", s, v)
				}
			}
		}
		if axes, err := parseOptionAxes([]string{s}); err == nil {
			for k, vs := range axes {
				if k == "" || len(vs) == 0 {
					t.Errorf("parseOptionAxes(%q): %v", s, axes)
				}
			}
		}
	})
}

// TestSweepDataFlags: the labels and preprocessing flags reach the grid's
// base configuration (so every run and the B1 line read the data as run
// would), as the manifest of the sweep's folder records it.
func TestSweepDataFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	labels := filepath.Join(t.TempDir(), "labels.tsv")
	if err := os.WriteFile(labels, []byte("barcode\tlabel\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := sweepJSON(t, "--mode", "nonprivate", "--seeds", "0", "--out", dir, "--data", labels,
		"--genes", "500", "--max-value", "5", "--labels", labels)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	var m sweepManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	base := m.Grid.Base
	if base.Preprocess == nil || base.Preprocess.NTopGenes != 500 || base.Preprocess.MaxValue != 5 ||
		base.Labels != labels {
		t.Errorf("grid base %+v (preprocess %+v), want the data flags in it", base, base.Preprocess)
	}
}
