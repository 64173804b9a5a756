// Package realaudit_test drives the TUI's Audit screen on a real engine
// (dppca, sound, on builtin:default: a run of a second or two). It lives
// apart from package tui's tests because registering dppca in that test
// binary would put it in the Trade-off sweep of TestTradeoffSweep, whose
// stand-in data set it cannot read.
package realaudit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpscope/dpscope/core"
	_ "github.com/dpscope/dpscope/core/method/dppca" // registers dppca
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/tui"
)

// TestAuditScreenDPPCA picks dppca sound on the Run screen, starts an
// audit from the Audit screen (7, s) and checks the screen shows the
// figures of the same audit run directly through core.Start (seeded noise:
// the same run): the bound, the best rule and the certified ε.
func TestAuditScreenDPPCA(t *testing.T) {
	label := ""
	for _, m := range core.Methods() {
		for _, p := range m.Entries() {
			if m.Name == "dppca" && p.Mode == core.ModeSound {
				label = p.Label
			}
		}
	}
	if label == "" {
		t.Fatal("no dppca sound entry")
	}
	m := tui.New(tui.Config{Summary: datasets.Summary{Name: "default", Source: "builtin:default"}, Backend: "test",
		ExportDir: t.TempDir(), StateDir: t.TempDir(), NoReferences: true, Seed: 3})
	m = settle(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 160, Height: 48})
	// The method control is the Run form's first field: step to dppca.
	for range 60 {
		if c := m.StartConfig(); c.Method == "dppca" && c.Mode == core.ModeSound {
			break
		}
		m = send(t, m, key("l"))
	}
	m = send(t, m, key("7"))
	m = send(t, m, key("s")) // settle follows the run to its end
	final := m
	if final.Active() != tui.TabAudit {
		t.Fatalf("on tab %d, want the Audit screen", final.Active())
	}
	cfg := final.StartConfig()
	if cfg.Method != "dppca" || cfg.Mode != core.ModeSound {
		t.Fatalf("the Run screen's method is %s %s, want dppca sound", cfg.Method, cfg.Mode)
	}
	cfg.Audit = &core.AuditSpec{Confidence: core.DefaultAuditConfidence}
	a, certified := direct(t, cfg)
	view := ansi.Strip(final.View().Content)
	for _, want := range []string{
		"ε ≥ " + eps(a.EpsilonLower), fmt.Sprintf("best rule %d/%d guesses right · %d canaries", a.Correct, a.Guesses, a.Canaries),
		"ceiling " + eps(a.Ceiling), "certified ε " + eps(certified.Epsilon) + " (" + certified.Accountant + ")",
		"dpscope certifies ε = " + eps(certified.Epsilon),
	} {
		if !strings.Contains(view, want) {
			t.Errorf("the Audit screen lacks %q (the direct run's audit %+v):\n%s", want, a, view)
		}
	}
	if a.EpsilonLower > certified.Epsilon {
		t.Errorf("a sound dppca run's bound %v exceeds its certified ε %v", a.EpsilonLower, certified.Epsilon)
	}
}

// direct runs cfg through core.Start and returns its audit and smallest
// certified ε.
func direct(t *testing.T, cfg core.Config) (core.AuditEvent, core.EpsilonValue) {
	t.Helper()
	run, err := core.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var a *core.AuditEvent
	var cert core.EpsilonValue
	for ev := range run.Events() {
		switch ev := ev.(type) {
		case core.AuditEvent:
			e := ev
			a = &e
		case core.GuaranteeEvent:
			for i, v := range ev.Audited {
				if i == 0 || v.Epsilon < cert.Epsilon {
					cert = v
				}
			}
		case core.ErrorEvent:
			t.Fatal(ev.Err)
		}
	}
	if a == nil {
		t.Fatal("the direct run reported no audit")
	}
	return *a, cert
}

// eps writes an ε as the interface does (tui's fmtEps for ε < 100).
func eps(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%.3g", v)
}

// key is a key press of one character.
func key(s string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: []rune(s)[0], Text: s} }

// send delivers msg and settles what it starts.
func send(t *testing.T, m tui.Model, msg tea.Msg) tui.Model {
	t.Helper()
	next, cmd := m.Update(msg)
	return settle(t, next.(tui.Model), cmd)
}

// settle runs cmd and feeds what it returns back into m, as the runtime
// would, skipping frame ticks (package tui's own tests do the same).
func settle(t *testing.T, m tui.Model, cmd tea.Cmd) tui.Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 100000 {
			t.Fatal("settle: too many commands")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil, tui.FrameMsg:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			next, c2 := m.Update(msg)
			m = next.(tui.Model)
			queue = append(queue, c2)
		}
	}
	return m
}
