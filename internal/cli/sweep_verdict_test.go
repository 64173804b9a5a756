package cli

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
)

// seedSpread is each seed's share of a pairedFake run's ARI: it varies
// widely from seed to seed (sd 0.13), as a method's runs do on real data,
// and the method's null shares it.
var seedSpread = []float64{0.10, 0.40, 0.20, 0.35, 0.15}

// pairedFake is a fake method whose runs sit seedSpread[seed mod 5] plus a
// gain: 0 for its null (zero epochs) and below ε 1, else 0.08 and 0.002
// more at odd seeds. The gain is plain seed by seed and lost in the
// spread of the seeds unpaired.
type pairedFake struct{ cfg core.Config }

func (f pairedFake) Run(ctx context.Context, ctl *core.Control) error {
	if _, err := ctl.Checkpoint(ctx); err != nil {
		return err
	}
	ari := seedSpread[f.cfg.Seed%5]
	status := core.GuaranteeNone
	if f.cfg.Mode != core.ModeNonPrivate {
		status = core.GuaranteeFormal
		ctl.Emit(core.BudgetEvent{Step: 1, Delta: f.cfg.Delta, Spent: []core.EpsilonValue{{Accountant: "RDP", Epsilon: f.cfg.Epsilon}}})
		if f.cfg.Epsilon >= 1 {
			ari += 0.08 + 0.002*float64(f.cfg.Seed%2)
		}
	}
	ctl.Emit(core.GuaranteeEvent{Status: status, Reasons: []string{"test"}})
	ctl.Emit(core.StepEvent{Stage: 1, Epoch: 1, Step: 1, Loss: 1})
	ctl.Emit(core.MetricsEvent{Stage: 1, Epoch: 1, Step: 1, Values: []core.NamedValue{{Name: "ARI", Value: ari}, {Name: "NMI", Value: ari}}})
	return nil
}

func init() {
	core.Register(core.Method{Name: "test-paired", Family: core.FamilyDPSGD,
		New: func(cfg core.Config) (core.Engine, error) { return pairedFake{cfg}, nil },
		Null: func(cfg core.Config) core.Config {
			cfg.Mode, cfg.Epsilon, cfg.Epochs = core.ModeNonPrivate, 0, []int{0}
			return cfg
		}})
}

// verdictGroup is what TestSweepPairedVerdict reads of a group.
type verdictGroup struct {
	Epsilon  float64
	N        int
	Verdict  string
	Test     string
	Learning *reference.Learning
	ARIMean  *float64 `json:"ari_mean"`
	ARISD    *float64 `json:"ari_sd"`
	Null     *reference.Line
}

func lastSweep(t *testing.T, args ...string) []verdictGroup {
	t.Helper()
	code, stdout, stderr := run(t, append([]string{"sweep", "--method", "test-paired", "--mode", "sound", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var last struct{ Sweep []verdictGroup }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	return last.Sweep
}

// TestSweepPairedVerdict: a group run at the null's seeds is judged seed
// by seed over the seeds it shares with the null (DECISIONS: "beyond seed
// noise"), with the figures in "learning"; with fewer than two shared
// seeds the unpaired test stands and says so; a resumed sweep gives the
// same verdicts; the table stars what the paired test finds no better.
func TestSweepPairedVerdict(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	first := lastSweep(t, "--epsilon", "0.5,1", "--seeds", "0-4", "--out", dir)
	if len(first) != 2 {
		t.Fatalf("%d groups, want 2", len(first))
	}
	flat, learnt := first[0], first[1]
	// ε 1: differences 0.080 0.082 0.080 0.082 0.080 over seeds 0–4.
	if l := learnt.Learning; learnt.Test != "paired" || l == nil || l.Seeds != 5 || math.Abs(l.Gain-0.0808) > 1e-9 || l.NoBetter || learnt.Verdict != "" {
		t.Errorf("ε 1: test %q, learning %+v, verdict %q; want paired over 5 seeds, gain 0.0808, learning", learnt.Test, learnt.Learning, learnt.Verdict)
	}
	if learnt.Null == nil || !reference.NoBetter(*learnt.ARIMean, *learnt.ARISD, learnt.N, *learnt.Null) {
		t.Error("the unpaired test sees the gain: the test's premise fails")
	}
	if l := flat.Learning; flat.Test != "paired" || l == nil || !l.NoBetter || math.Abs(l.Gain) > 1e-12 || flat.Verdict != reference.NoLearning {
		t.Errorf("ε 0.5: test %q, learning %+v, verdict %q; want paired, gain 0, %q", flat.Test, flat.Learning, flat.Verdict, reference.NoLearning)
	}

	// Resumed: every run read back from the folder, the same verdicts.
	again := lastSweep(t, "--epsilon", "0.5,1", "--seeds", "0-4", "--out", dir)
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("resumed sweep judges otherwise:\n%s\n%s", a, b)
	}

	// Seeds 1–2 of the null's: paired over those two.
	if g := lastSweep(t, "--epsilon", "1", "--seeds", "1-2")[0]; g.Test != "paired" || g.Learning == nil || g.Learning.Seeds != 2 || g.Verdict != "" {
		t.Errorf("seeds 1–2: %+v, want paired over 2 seeds, learning", g)
	}
	// Seeds 5–9 share none of the null's seeds 0–4, seeds 0 and 7 one:
	// the unpaired test, which the seeds' spread hides the gain from.
	for _, seeds := range []string{"5-9", "0,7"} {
		g := lastSweep(t, "--epsilon", "1", "--seeds", seeds)[0]
		if g.Test != "unpaired" || g.Learning != nil || g.Verdict != reference.NoLearning {
			t.Errorf("seeds %s: test %q, learning %+v, verdict %q; want unpaired, none, %q", seeds, g.Test, g.Learning, g.Verdict, reference.NoLearning)
		}
	}

	code, stdout, stderr := run(t, "sweep", "--method", "test-paired", "--mode", "sound", "--epsilon", "0.5,1", "--seeds", "0-4")
	if code != ExitOK {
		t.Fatalf("table: exit %d: %s", code, stderr)
	}
	var starred []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "test-paired") && strings.Contains(l, "*") {
			starred = append(starred, strings.Fields(l)[2])
		}
	}
	if len(starred) != 1 || starred[0] != "0.5" || !strings.Contains(stdout, "tested paired seed by seed") {
		t.Errorf("starred rows at ε %v, want 0.5 only, and a note on the paired test:\n%s", starred, stdout)
	}
}

// TestKTooLargeOneError: k above the data's cells is refused before the
// run shows anything, as one usage error naming the input, for each
// method with an option k; the method's name is not repeated.
func TestKTooLargeOneError(t *testing.T) {
	for _, m := range []string{"dppca", "dcan"} { // dcan-sound: its own package tests its CheckData
		code, stdout, stderr := run(t, "run", "--method", m, "--opt", "k=100000")
		first, _, _ := strings.Cut(stderr, "\n")
		if code != ExitUsage || stdout != "" || first != "dpscope: --opt k=100000: k must be ≤ the 2000 cells of builtin:default" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout, one line naming --opt k=100000", m, code, stdout, stderr, ExitUsage)
		}
	}
}

// TestSweepKTooLargeOneError: a sweep whose grid holds a k above the
// data's cells is one usage error naming that value before any run, not
// a table of runs that each failed with it.
func TestSweepKTooLargeOneError(t *testing.T) {
	code, stdout, stderr := run(t, "sweep", "--method", "dppca", "--epsilon", "8", "--seeds", "0", "--opt", "k=3,100000")
	first, _, _ := strings.Cut(stderr, "\n")
	if code != ExitUsage || stdout != "" || first != "dpscope: --opt k=100000: k must be ≤ the 2000 cells of builtin:default" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout, one line naming --opt k=100000", code, stdout, stderr, ExitUsage)
	}
}
