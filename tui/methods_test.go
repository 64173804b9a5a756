package tui

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	_ "github.com/dpscope/dpscope/core/method/dpmd" // registers dpmd
	"github.com/dpscope/dpscope/core/method/fed"
)

// selectMethod steps the method control from the default (DP-DCAN paper)
// to the variant labelled label, with the keys a user would press.
func selectMethod(t *testing.T, m Model, label string) Model {
	t.Helper()
	for range variants() {
		if runPaneOf(m).Params().V().Label == label {
			return m
		}
		m = press(t, m, "l")
	}
	t.Fatalf("no method %q in the picker", label)
	return m
}

// TestMethodConfigs checks that picking each method builds the engine's
// configuration (method, mode, options, clients, epochs), and that the
// engine itself accepts it, without starting a run.
func TestMethodConfigs(t *testing.T) {
	dpmd := map[string]string{"manifold": "sphere", "D": "20", "n": "5000", "queries": "200", "sigma": "0.1", "T": "2", "theta": "0.5"}
	for _, tc := range []struct {
		label   string
		method  string
		mode    core.Mode
		data    string
		options map[string]string
		clients int
		epochs  []int
		eps     float64
	}{
		{"DP-DCAN sound (paper network)", "dcan", core.ModeSound, "builtin:toy", nil, 0, core.DefaultEpochs[:], 4},
		{"DP-MD paper", "dpmd", core.ModePaper, "manifold:sphere", dpmd, 0, nil, 1},
		{"DP-MD sound", "dpmd", core.ModeSound, "manifold:sphere", dpmd, 0, nil, 1},
		{"DP-MD non-private", "dpmd", core.ModeNonPrivate, "manifold:sphere", dpmd, 0, nil, 0},
		{"FL", "fl", core.ModeNonPrivate, "builtin:toy", map[string]string{"split": "equal"}, 5, []int{5, 1}, 0},
		{"FL-DP", "fl-dp", core.ModePaper, "builtin:toy", map[string]string{"split": "equal"}, 30, []int{5, 1}, 5},
		{"PPML-Omics paper", "ppml-omics", core.ModePaper, "builtin:toy", map[string]string{"split": "equal", "protocol": "swap"}, 30, []int{5, 1}, 5},
		{"PPML-Omics sound", "ppml-omics", core.ModeSound, "builtin:toy", map[string]string{"split": "equal", "protocol": "swap"}, 30, []int{5, 1}, 5},
		{"FL-DP sound, one cell", "fl-dp", core.ModeSound, "builtin:toy", map[string]string{"split": "equal", "unit": "record"}, 5, []int{20, 10}, 5},
		{"PPML-Omics sound, one cell", "ppml-omics", core.ModeSound, "builtin:toy", map[string]string{"split": "equal", "protocol": "swap", "unit": "record"}, 5, []int{20, 10}, 5},
		{"FedSC", "fedsc", core.ModeNonPrivate, "builtin:toy", map[string]string{"split": "iid"}, 4, []int{10, 5}, 0},
		{"FedSC + client DP", "fedsc", core.ModeSound, "builtin:toy", map[string]string{"split": "iid"}, 4, []int{10, 5}, 5},
	} {
		t.Run(tc.label, func(t *testing.T) {
			m := selectMethod(t, sized(t, testModel(t, ""), 160, 48), tc.label)
			cfg := runPaneOf(m).Params().Config(m.c.Config.Method)
			if cfg.Method != tc.method || cfg.Mode != tc.mode || cfg.Data != tc.data {
				t.Errorf("config %s %s on %s, want %s %s on %s", cfg.Method, cfg.Mode, cfg.Data, tc.method, tc.mode, tc.data)
			}
			if !maps.Equal(cfg.Options, tc.options) {
				t.Errorf("options %v, want %v", cfg.Options, tc.options)
			}
			if cfg.Clients != tc.clients || !slices.Equal(cfg.Epochs, tc.epochs) {
				t.Errorf("clients %d epochs %v, want %d and %v", cfg.Clients, cfg.Epochs, tc.clients, tc.epochs)
			}
			if cfg.Epsilon != tc.eps {
				t.Errorf("ε %v, want %v", cfg.Epsilon, tc.eps)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatalf("core rejects the config: %v", err)
			}
			// The engine itself, through its descriptor (New loads no data).
			desc, err := core.LookupMethod(cfg.Method)
			if err == nil {
				_, err = desc.New(cfg)
			}
			if err != nil {
				t.Errorf("%s rejects the config: %v", cfg.Method, err)
			}
			if runPaneOf(m).charts.started || m.RunState() != RunIdle {
				t.Error("picking a method started a run")
			}
		})
	}
}

// TestMethodControls checks that each family shows its own controls: the
// layer strip only for DCAN, clients for the federated methods, the
// manifold's for DP-MD (and not its sizes on a data set).
func TestMethodControls(t *testing.T) {
	m := sized(t, testModel(t, ""), 160, 48)
	view := text(m)
	for _, want := range []string{"noise from", "epochs st.1", "loss"} {
		if !strings.Contains(view, want) {
			t.Errorf("DP-DCAN view lacks %q", want)
		}
	}
	m = selectMethod(t, m, "DP-MD paper")
	view = text(m)
	for _, want := range []string{"manifold:sphere", "D ambient", "n refs", "queries", "T iters", "θ projector", "paper used 0.1", "mean distance to M"} {
		if !strings.Contains(view, want) {
			t.Errorf("DP-MD view lacks %q", want)
		}
	}
	for _, gone := range []string{"noise from", "1■", "epochs st.1", "q sampling", "clients K"} {
		if strings.Contains(view, gone) {
			t.Errorf("DP-MD view shows %q", gone)
		}
	}
	// manifold kind → data: the loaded data set, without the synthetic sizes
	m = press(t, m, "j", "j", "h", "h")
	if pr := runPaneOf(m).Params(); pr.Manifold.Kind != "data" || pr.Config("").Data != "builtin:toy" {
		t.Errorf("manifold %q on %q, want data on builtin:toy", pr.Manifold.Kind, pr.Config("").Data)
	}
	if view = text(m); strings.Contains(view, "D ambient") || !strings.Contains(view, "the data set") {
		t.Errorf("DP-MD on data still shows the synthetic sizes:\n%s", view)
	}
	m = press(t, m, "k", "k")
	m = selectMethod(t, m, "PPML-Omics paper")
	view = text(m)
	for _, want := range []string{"clients K", "rounds", "local ep.", "split", "DR protocol", "σ noise", "auto", "C clip"} {
		if !strings.Contains(view, want) {
			t.Errorf("PPML-Omics view lacks %q", want)
		}
	}
	if strings.Contains(view, "noise from") || strings.Contains(view, "D ambient") {
		t.Error("PPML-Omics view shows DCAN's or DP-MD's controls")
	}
	checkFits(t, m.View().Content, 160, 48)
}

// TestFedDefaultsFollowMethod checks that settings left at a method's
// default follow the next method's, and edited ones stay.
func TestFedDefaultsFollowMethod(t *testing.T) {
	m := selectMethod(t, sized(t, testModel(t, ""), 160, 48), "FL")
	if k := runPaneOf(m).Params().Fed.Clients; k != fed.DefaultClientsFL {
		t.Fatalf("FL clients %d, want %d", k, fed.DefaultClientsFL)
	}
	m = selectMethod(t, m, "FL-DP")
	if k := runPaneOf(m).Params().Fed.Clients; k != fed.DefaultClientsDP {
		t.Errorf("FL-DP clients %d, want the DP default %d", k, fed.DefaultClientsDP)
	}
	m = press(t, m, "j", "j", "l") // clients 31
	m = press(t, m, "k", "k")
	m = selectMethod(t, m, "PPML-Omics paper")
	if k := runPaneOf(m).Params().Fed.Clients; k != fed.DefaultClientsDP+1 {
		t.Errorf("edited clients became %d, want %d kept", k, fed.DefaultClientsDP+1)
	}
}

// TestClientsPatchDuringRun runs FL-DP on the slow fake engine, changes
// the number of clients mid-run and checks the engine acknowledges a
// Clients patch.
func TestClientsPatchDuringRun(t *testing.T) {
	m := selectMethod(t, sized(t, testModel(t, fakeSlow), 160, 48), "FL-DP")
	runPaneOf(m).params.Fed.Rounds = 400 // 25 ms a round on the fake: stopped long before
	next, cmd := m.Update(kp("s"))
	m = next.(Model)
	// Run the start request and core.Start, but not the event wait.
	for range 2 {
		next, cmd = m.Update(cmd())
		m = next.(Model)
	}
	if m.run == nil {
		t.Fatalf("no run started; status %q", m.Status())
	}
	run := m.run
	defer func() { run.Stop(); run.Wait() }()
	m = press(t, m, "j", "j")
	next, cmd = m.Update(kp("l"))
	m = next.(Model)
	_, msgs := settle(t, m, cmd)
	want := fed.DefaultClientsDP + 1
	var sent bool
	for _, msg := range msgs {
		if p, ok := msg.(PatchMsg); ok && p.Patch.Clients != nil && *p.Patch.Clients == want {
			sent = true
		}
	}
	if !sent {
		t.Fatalf("no clients=%d patch among %v", want, msgs)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-run.Events():
			if !ok {
				t.Fatal("run ended without acknowledging the clients patch")
			}
			if pe, isPatch := ev.(core.PatchEvent); isPatch && pe.Patch.Clients != nil {
				if !pe.Applied || *pe.Patch.Clients != want {
					t.Fatalf("patch event %+v, want clients=%d applied", pe, want)
				}
				return
			}
		case <-timeout:
			t.Fatal("no patch event within 10 s")
		}
	}
}

// TestDPMDLiveFieldsSendOptionPatches: during a DP-MD run, T, θ and d are
// sent as Patch.Options (h too, once it has a value); h cannot be stepped
// from auto.
func TestDPMDLiveFieldsSendOptionPatches(t *testing.T) {
	m := selectMethod(t, sized(t, testModel(t, fakeFast), 160, 48), "DP-MD paper")
	m.c.RunState = RunRunning
	optionPatch := func(m Model, key string) (Model, map[string]string) {
		t.Helper()
		next, cmd := m.Update(kp(key))
		m, msgs := settle(t, next.(Model), cmd)
		for _, msg := range msgs {
			if p, ok := msg.(PatchMsg); ok {
				return m, p.Patch.Options
			}
		}
		return m, nil
	}
	m = press(t, m, "j", "j", "j", "j", "j", "j", "j") // T iters
	m, got := optionPatch(m, "l")
	if got["T"] != "3" {
		t.Fatalf("T step sent options %v, want T=3", got)
	}
	m = press(t, m, "j") // θ
	if m, got = optionPatch(m, "l"); got["theta"] != "0.6" {
		t.Errorf("θ step sent options %v, want theta=0.6", got)
	}
	m = press(t, m, "j") // h: auto
	if m, got = optionPatch(m, "l"); got != nil || !strings.Contains(m.Status(), "type a value") {
		t.Errorf("h step from auto sent %v, status %q; want no patch and a hint to type a value", got, m.Status())
	}
	m = press(t, m, "j") // d: auto → 1
	if _, got = optionPatch(m, "l"); got["d"] != "1" {
		t.Errorf("d step sent options %v, want d=1", got)
	}
	cfg := runPaneOf(m).Params()
	cfg.Manifold.H, cfg.Manifold.Dim = 0.7, 2
	if o := cfg.Config("").Options; o["h"] != "0.7" || o["d"] != "2" {
		t.Errorf("config options %v, want h=0.7 and d=2", o)
	}
}

// TestClientSplitShown feeds a federated run whose K changes from 4 to 3
// at round 3: the Run pane lists the client counts over the run, marks the
// change and shows cells and classes per client of the current split.
func TestClientSplitShown(t *testing.T) {
	m := selectMethod(t, sized(t, testModel(t, ""), 160, 48), "FL")
	three := 3
	evs := []core.Event{core.StageEvent{Stage: 1, Steps: 5, Name: "fl, K = 4 clients"},
		core.ClientsEvent{Round: 1, K: 4, Split: "equal", Sizes: []int{25, 25, 25, 25},
			Classes: [][]string{{"A", "B"}, {"A", "B"}, {"C"}, {"D"}}}}
	for r := 1; r <= 5; r++ {
		if r == 3 {
			evs = append(evs, core.PatchEvent{Patch: core.Patch{Clients: &three}, Step: 3, Applied: true},
				core.StageEvent{Stage: 2, Steps: 3, Name: "fl, K = 3 clients"},
				core.ClientsEvent{Round: 3, K: 3, Split: "equal", Sizes: []int{34, 33, 33},
					Classes: [][]string{{"A", "B", "C"}, {"B", "D"}, {"A", "D"}}})
		}
		evs = append(evs, core.StepEvent{Stage: 1 + r/3, Epoch: r, Step: r, Loss: 1 / float64(r)})
	}
	m = feed(t, m, 1, append(evs, core.DoneEvent{}))
	view := text(m)
	for _, want := range []string{"clients", "round 1: K = 4, equal",
		"▼ round 3: K = 3, equal", "1: 34 cells, 3 classes (A, B, C)", "3: 33 cells, 2 classes (A, D)"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "4: 25 cells") {
		t.Error("the view still lists the first split's client 4")
	}
	checkFits(t, m.View().Content, 160, 48)
}
