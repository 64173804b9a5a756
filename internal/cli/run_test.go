package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	_ "github.com/dpscope/dpscope/core/method/dpmd" // dpmd, whose options have shorthand flags
)

// scripted is a fake engine that reports what a short private run would.
type scripted struct {
	cfg   core.Config
	steps int
	delay time.Duration
}

func (s scripted) Run(ctx context.Context, ctl *core.Control) error {
	ctl.Emit(core.GuaranteeEvent{Status: core.GuaranteeFormal, Reasons: []string{"test reason"},
		Published: []core.EpsilonValue{{Accountant: "paper", Epsilon: 5}}})
	ctl.Emit(core.StageEvent{Stage: 1, Name: "only", Steps: s.steps})
	for step := 1; step <= s.steps; step++ {
		if _, err := ctl.Checkpoint(ctx); err != nil {
			return err
		}
		ctl.Emit(core.StepEvent{Stage: 1, Epoch: 1, Step: step, Loss: 1 / float64(step)})
		ctl.Emit(core.BudgetEvent{Step: step, Delta: s.cfg.Delta, Spent: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 0.1 * float64(step)}}})
		if s.delay > 0 {
			time.Sleep(s.delay)
		}
	}
	ctl.Emit(core.MetricsEvent{Stage: 1, Epoch: 1, Step: s.steps, Unreleased: true,
		Values: []core.NamedValue{{Name: "ARI", Value: 0.5}, {Name: "NMI", Value: 0.6}}})
	ctl.Emit(core.ResultEvent{Cells: 2, Dim: 2, Embedding: []float32{1, 2, 3, 4}, Cluster: []int{0, 1}, Barcodes: []string{"a", "b"}})
	return nil
}

func init() {
	core.Register(core.Method{Name: "test-scripted", Family: core.FamilyDPSGD, New: func(cfg core.Config) (core.Engine, error) {
		return scripted{cfg: cfg, steps: 10 + int(cfg.Seed)}, nil
	}})
	core.Register(core.Method{Name: "test-slow", Family: core.FamilyDPSGD, New: func(cfg core.Config) (core.Engine, error) {
		return scripted{cfg: cfg, steps: 1 << 20, delay: time.Millisecond}, nil
	}})
}

func TestRunJSONLinesEndWithSummary(t *testing.T) {
	code, stdout, stderr := run(t, "run", "--method", "test-scripted", "--json", "--seed", "0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	types := map[string]int{}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", l, err)
		}
		types[m["type"].(string)]++
	}
	if types["step"] != 10 || types["done"] != 1 || types["summary"] != 1 || types["result"] != 1 {
		t.Errorf("event types = %v, want 10 steps, one result, done and summary", types)
	}
	var sum map[string]any
	json.Unmarshal([]byte(lines[len(lines)-1]), &sum)
	eps := sum["epsilon"].(map[string]any)
	if sum["type"] != "summary" || sum["guarantee"] != "formal" || sum["ari"] != 0.5 || eps["RDP"] != 1.0 ||
		sum["epsilon_published"].(map[string]any)["paper"] != 5.0 || sum["steps"] != 10.0 {
		t.Errorf("summary = %v", sum)
	}
	for _, f := range []string{"guarantee_reasons", "nmi", "acc", "silhouette", "seconds"} {
		if _, ok := sum[f]; !ok {
			t.Errorf("summary lacks %q", f)
		}
	}
}

func TestRunReadableSummary(t *testing.T) {
	code, stdout, _ := run(t, "run", "--method", "test-scripted")
	for _, want := range []string{"guarantee", "formal", "test reason", "RDP", "as published", "ARI", "not covered"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if code != ExitOK {
		t.Errorf("exit %d", code)
	}
}

func TestRunOutFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	cfgFile := filepath.Join(t.TempDir(), "run.toml")
	os.WriteFile(cfgFile, []byte("method = \"test-scripted\"\nseed = 2\nlayers = \"1-3\"\nepsilon = 4\n"), 0o644)
	code, _, stderr := run(t, "run", "--config", cfgFile, "--epsilon", "6", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, ","), "assignments.tsv,config.toml,embedding.tsv,events.jsonl,summary.json"; got != want {
		t.Fatalf("--out files = %s, want %s (no temporaries left)", got, want)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	for _, want := range []string{`layers = "1-3"`, "epsilon = 6.0", "seed = 2"} {
		if !bytes.Contains(cfg, []byte(want)) {
			t.Errorf("config.toml lacks %q (flags override the file, the file the defaults):\n%s", want, cfg)
		}
	}
	emb, _ := os.ReadFile(filepath.Join(dir, "embedding.tsv"))
	if string(emb) != "barcode\tz1\tz2\na\t1\t2\nb\t3\t4\n" {
		t.Errorf("embedding.tsv = %q", emb)
	}
	ev, _ := os.Open(filepath.Join(dir, "events.jsonl"))
	defer ev.Close()
	n := 0
	for sc := bufio.NewScanner(ev); sc.Scan(); n++ {
	}
	if n < 12+12 { // 12 steps and 12 budgets, plus the rest
		t.Errorf("events.jsonl has %d lines, want every event", n)
	}
}

func TestRunUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("epsilonn = 3\n"), 0o644)
	tests := []struct {
		desc string
		args []string
		want int
		msg  string
	}{
		{"bad layers", []string{"run", "--layers", "one-three"}, ExitUsage, "layer range"},
		{"layers out of range", []string{"run", "--method", "test-scripted", "--mode", "paper", "--layers", "0-3"}, ExitUsage, ""},
		{"δ out of range", []string{"run", "--method", "test-scripted", "--delta", "2"}, ExitUsage, "delta is 2"},
		{"ε negative", []string{"run", "--method", "test-scripted", "--epsilon", "-1"}, ExitUsage, "epsilon is -1"},
		{"bad epochs", []string{"run", "--epochs", "5,x"}, ExitUsage, "--epochs"},
		{"unknown method", []string{"run", "--method", "nope"}, ExitUsage, "nope"},
		{"unknown config key", []string{"run", "--config", bad}, ExitRuntime, "epsilonn"},
		{"missing config", []string{"run", "--config", "/nonexistent.toml"}, ExitRuntime, "nonexistent"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if tc.msg == "" {
				return // only that it does not panic
			}
			if code != tc.want || !strings.Contains(stderr, tc.msg) {
				t.Errorf("%q = exit %d, %q; want %d mentioning %q", tc.args, code, stderr, tc.want, tc.msg)
			}
		})
	}
}

func TestRunInterruptStopsGracefully(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var out, errOut bytes.Buffer
	code := Execute(ctx, []string{"run", "--method", "test-slow", "--json"}, Env{Stdout: &out, Stderr: &errOut})
	if code != ExitRuntime || !strings.Contains(errOut.String(), "stopped") {
		t.Errorf("interrupted run: exit %d, stderr %q; want 1 and 'stopped'", code, errOut.String())
	}
	if !strings.Contains(out.String(), `"type":"summary"`) || !strings.Contains(out.String(), `"stopped":true`) {
		t.Errorf("interrupted run did not print its summary:\n%s", out.String())
	}
}

func TestRunOptions(t *testing.T) {
	parse := func(args ...string) (core.Config, error) {
		rf := &runFlags{cfg: defaultRunConfig()}
		cmd := rf.command(Env{})
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		return rf.config(cmd)
	}
	got, err := parse("--method", "dpmd", "--manifold", "sphere", "--D", "20", "--sigma", "0.3", "--theta", "0.25",
		"--opt", "nonprivate=px", "--mode", "paper", "--epsilon", "1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"manifold": "sphere", "D": "20", "sigma": "0.3", "theta": "0.25", "nonprivate": "px"}
	for k, v := range want {
		if got.Options[k] != v {
			t.Errorf("Options[%s] = %q, want %q (all: %v)", k, got.Options[k], v, got.Options)
		}
	}
	if got.Sigma != 0 || got.Data != "manifold:sphere" {
		t.Errorf("dpmd config: Sigma %v, Data %q; want 0 (σ is the data's noise) and manifold:sphere", got.Sigma, got.Data)
	}
	if _, err := parse("--method", "test-scripted", "--D", "20"); err == nil || !strings.Contains(err.Error(), "does not take") {
		t.Errorf("--D with dcan: %v, want a usage error", err)
	}
	if _, err := parse("--method", "test-scripted", "--opt", "novalue"); err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
		t.Errorf("--opt novalue: %v, want a usage error", err)
	}
}
