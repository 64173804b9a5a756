package tui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// The toy method lives in this test file alone: registering it is all it
// takes for the Run pane to list it, make its fields and configure it.
const toyName = "toy-median"

type toyEngine struct{}

func (toyEngine) Run(ctx context.Context, ctl *core.Control) error {
	_, err := ctl.Checkpoint(ctx)
	return err
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
		New: func(core.Config) (core.Engine, error) { return toyEngine{}, nil },
	})
}

// cursorTo moves the Run form's cursor down to the field named name.
func cursorTo(t *testing.T, m Model, name string) Model {
	t.Helper()
	for range len(runPaneOf(m).form.fields) {
		if f := runPaneOf(m).form; f.fields[f.cursor].name == name {
			return m
		}
		m = press(t, m, "j")
	}
	t.Fatalf("no field %q in the Run form", name)
	return m
}

func TestToyMethodInRunPane(t *testing.T) {
	labels := []string{}
	for _, v := range variants() {
		labels = append(labels, v.Label)
	}
	if !slices.Contains(labels, "Toy median nonprivate") || !slices.Contains(labels, "Toy median sound") {
		t.Fatalf("method list %q lacks the toy's two modes", labels)
	}
	m := selectMethod(t, sized(t, testModel(t, ""), 160, 48), "Toy median sound")
	view := text(m)
	for _, want := range []string{"rounds", "1..50", "shape", "flat", "ε target"} {
		if !strings.Contains(view, want) {
			t.Errorf("toy view lacks %q:\n%s", want, view)
		}
	}
	for _, gone := range []string{"noise from", "clients K", "C clip", "D ambient", "q sampling"} {
		if strings.Contains(view, gone) {
			t.Errorf("toy view shows %q", gone)
		}
	}
	m = cursorTo(t, m, "rounds")
	m = press(t, m, "l")
	pr := runPaneOf(m).Params()
	cfg := pr.Config("")
	if cfg.Method != toyName || cfg.Mode != core.ModeSound || cfg.Options["rounds"] != "4" || len(cfg.Options) != 1 {
		t.Errorf("toy config %s %s %v, want %s sound rounds=4", cfg.Method, cfg.Mode, cfg.Options, toyName)
	}
	if g, why := expectedGuarantee(pr); g != core.GuaranteeFormal || len(why) != 1 || why[0] != "toy: depends on ε only" {
		t.Errorf("expected guarantee %s %q, want the toy's Expect", g, why)
	}
	// A live option sends a patch during a run; the others are locked.
	m.c.RunState = RunRunning
	next, cmd := m.Update(kp("l"))
	_, msgs := settle(t, next.(Model), cmd)
	var patch *core.Patch
	for _, msg := range msgs {
		if p, ok := msg.(PatchMsg); ok {
			patch = &p.Patch
		}
	}
	if patch == nil || patch.Options["rounds"] != "5" {
		t.Errorf("no rounds=5 patch among %v", msgs)
	}
	m = cursorTo(t, next.(Model), "shape")
	m = press(t, m, "l")
	if !m.errored || !strings.Contains(m.Status(), "fixed while a run is going") {
		t.Errorf("status %q, want shape locked during a run", m.Status())
	}
}
