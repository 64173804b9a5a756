package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// The toy method lives in this test file alone: registering it is all it
// takes for the command line to list, validate, document and run it.
const toyName = "toy-median"

// toyEngine reports a loss that halves each round and one metric.
type toyEngine struct{ rounds int }

func (e toyEngine) Run(ctx context.Context, ctl *core.Control) error {
	ctl.Emit(core.StageEvent{Stage: 1, Name: "toy", Steps: e.rounds})
	loss := 1.0
	for step := 1; step <= e.rounds; step++ {
		if _, err := ctl.Checkpoint(ctx); err != nil {
			return err
		}
		loss /= 2
		ctl.Emit(core.StepEvent{Stage: 1, Epoch: step, Step: step, Loss: loss})
	}
	ctl.Emit(core.MetricsEvent{Stage: 1, Step: e.rounds, Values: []core.NamedValue{{Name: "ARI", Value: 1 - loss}}})
	return nil
}

func init() {
	core.Register(core.Method{
		Name: toyName, Title: "Toy median", Family: core.FamilyClustering,
		Doc:   "a toy method registered by a test",
		Modes: []core.Mode{core.ModeNonPrivate, core.ModeSound},
		Options: []core.OptionSpec{
			{Key: "rounds", Kind: core.KindInt, Default: 3, Min: 1, Max: 50, Live: true, Doc: "toy rounds"},
			{Key: "shape", Kind: core.KindChoice, Default: "flat", Choices: []string{"flat", "steep"}, Doc: "toy shape"},
		},
		Expect: func(cfg core.Config) (core.Guarantee, []string) {
			if cfg.Mode == core.ModeSound {
				return core.GuaranteeFormal, []string{"toy: depends on ε only"}
			}
			return core.GuaranteeNone, []string{"toy: no noise"}
		},
		New: func(cfg core.Config) (core.Engine, error) {
			v, err := core.ParseOptions([]core.OptionSpec{{Key: "rounds", Kind: core.KindInt, Doc: "toy rounds"},
				{Key: "shape", Kind: core.KindString, Doc: "toy shape"}}, cfg.Options)
			if err != nil {
				return nil, err
			}
			e := toyEngine{rounds: 3}
			v.IntTo("rounds", &e.rounds)
			return e, nil
		},
	})
}

func TestToyMethodInMethodsJSON(t *testing.T) {
	code, stdout, stderr := run(t, "methods", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var ms []struct {
		Name      string   `json:"name"`
		Family    string   `json:"family"`
		Modes     []string `json:"modes"`
		Needs     []string `json:"needs"`
		Options   []map[string]any
		Guarantee []struct{ Mode, Status string }
	}
	if err := json.Unmarshal([]byte(stdout), &ms); err != nil {
		t.Fatalf("methods --json: %v\n%s", err, stdout)
	}
	for _, m := range ms {
		if m.Name != toyName {
			continue
		}
		if m.Family != "clustering" || strings.Join(m.Modes, ",") != "nonprivate,sound" || len(m.Needs) != 0 {
			t.Errorf("toy: family %q modes %v needs %v", m.Family, m.Modes, m.Needs)
		}
		o := m.Options[0]
		if o["key"] != "rounds" || o["kind"] != "int" || o["default"] != 3.0 || o["min"] != 1.0 || o["max"] != 50.0 || o["live"] != true {
			t.Errorf("toy option rounds = %v", o)
		}
		if len(m.Guarantee) != 2 || m.Guarantee[1].Status != "formal" {
			t.Errorf("toy guarantees %+v, want none then formal", m.Guarantee)
		}
		return
	}
	t.Fatalf("methods --json does not list %s:\n%s", toyName, stdout)
}

func TestToyMethodInRunHelpAndValidation(t *testing.T) {
	_, help, _ := run(t, "run", "--help")
	if !strings.Contains(help, toyName+":") || !strings.Contains(help, "toy rounds") || !strings.Contains(help, "flat|steep") {
		t.Errorf("run --help lacks the toy's options:\n%s", help)
	}
	_, text, _ := run(t, "methods")
	if !strings.Contains(text, toyName+" (Toy median, clustering)") || !strings.Contains(text, "sound: guarantee formal — toy: depends on ε only") {
		t.Errorf("methods lacks the toy:\n%s", text)
	}
	tests := []struct {
		args []string
		want int
		msg  string
	}{
		{[]string{"--method", toyName + "x"}, ExitUsage, toyName},
		{[]string{"--method", toyName, "--mode", "paper"}, ExitUsage, "takes nonprivate, sound"},
		{[]string{"--method", toyName, "--mode", "nonprivate", "--opt", "rounds=51"}, ExitUsage, "option rounds is \"51\", must be an integer in 1..50"},
		{[]string{"--method", toyName, "--mode", "nonprivate", "--opt", "shape=round"}, ExitUsage, "flat, steep"},
		{[]string{"--method", toyName, "--mode", "nonprivate", "--opt", "speed=1"}, ExitUsage, "must be one of rounds, shape"},
	}
	for _, tc := range tests {
		code, _, stderr := run(t, append([]string{"run"}, tc.args...)...)
		if code != tc.want || !strings.Contains(stderr, tc.msg) {
			t.Errorf("run %q = exit %d, %q; want %d mentioning %q", tc.args, code, stderr, tc.want, tc.msg)
		}
	}
	code, stdout, stderr := run(t, "run", "--method", toyName, "--mode", "nonprivate", "--opt", "rounds=4", "--json")
	if code != ExitOK || !strings.Contains(stdout, `"steps":4`) || !strings.Contains(stdout, `"ari":0.9375`) {
		t.Errorf("toy run: exit %d, %s\n%s", code, stderr, stdout)
	}
}
