package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dcan"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/cli"
	"github.com/dpscope/dpscope/tui"
)

// TestFacesStartFromTheSameDefaults (issue 19.8): the interface's first
// run and `dpscope run` without flags agree on the method, the mode, ε,
// δ, C, q, the seed and the accountant, all core's defaults; the
// interface's epochs are the ones `run` leaves to DP-DCAN; the README says
// the same.
func TestFacesStartFromTheSameDefaults(t *testing.T) {
	run := cli.DefaultRunConfig()
	face := tui.New(tui.Config{Summary: datasets.Summary{Name: "default", Source: "builtin:default"}, NoReferences: true}).StartConfig()
	m, p, ok := core.DefaultEntry()
	if !ok {
		t.Fatal("no default entry registered")
	}
	want := core.DefaultConfig("builtin:default")
	if want.Method != m.Name || want.Mode != p.Mode || want.Epsilon != 4 || want.Delta != 1e-5 {
		t.Fatalf("core.DefaultConfig = %+v, want the default entry %s %s at ε 4, δ 1e-5", want, m.Name, p.Mode)
	}
	for _, c := range []struct {
		name       string
		run, iface any
	}{
		{"data", run.Data, face.Data}, {"method", run.Method, face.Method}, {"mode", run.Mode, face.Mode},
		{"delta", run.Delta, face.Delta}, {"clip", run.Clip, face.Clip}, {"q", run.SampleRate, face.SampleRate},
		{"seed", run.Seed, face.Seed}, {"accountant", run.Accountant, face.Accountant},
	} {
		if c.run != c.iface {
			t.Errorf("%s: run starts at %v, the interface at %v", c.name, c.run, c.iface)
		}
	}
	// The interface's σ control starts solved for the target, so its
	// config carries ε unless the method sets its noise itself.
	if run.Epsilon != want.Epsilon || (face.Epsilon != 0 && face.Epsilon != want.Epsilon) {
		t.Errorf("ε: run %v, interface %v, want %v", run.Epsilon, face.Epsilon, want.Epsilon)
	}
	if run.Method != want.Method || run.Mode != want.Mode {
		t.Errorf("run starts with %s %s, want %s %s", run.Method, run.Mode, want.Method, want.Mode)
	}
	// `run` leaves the epochs to the method (DP-DCAN: dcan.DefaultEpochs);
	// the interface shows them.
	if run.Epochs != nil || dcan.DefaultEpochs != core.DefaultEpochs || !slices.Equal(face.Epochs, core.DefaultEpochs[:]) {
		t.Errorf("epochs: run %v (want the method's), DP-DCAN's %v, interface %v, core %v", run.Epochs, dcan.DefaultEpochs, face.Epochs, core.DefaultEpochs)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("`%s` in %s mode, ε = %g, δ = %s, C = %g, q = %g, epochs %d + %d, seed %d, accountant %s",
		want.Method, want.Mode, want.Epsilon, strings.Replace(fmt.Sprint(want.Delta), "e-0", "e-", 1), want.Clip, want.SampleRate, core.DefaultEpochs[0], core.DefaultEpochs[1], want.Seed, strings.ToUpper(want.Accountant))
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), line) {
		t.Errorf("README does not list the defaults as %q", line)
	}
}
