package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/class"
)

// classModel is a served session's model seated in reg.
func classModel(t *testing.T, reg *class.Registry, id, name string, instructor bool) (Model, *class.Seat) {
	t.Helper()
	seat, err := reg.Join(id, name, instructor)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, ExportDir: t.TempDir(), StateDir: t.TempDir(), Seed: 1, Class: seat})
	return m, seat
}

// TestClassReportsFinishedRun: a participant opens on the Run tab, and a
// finished run is filed on the class board with its name, ε, accountant,
// unit and scores; a stopped run is not filed.
func TestClassReportsFinishedRun(t *testing.T) {
	reg := class.NewRegistry()
	teacher, _ := reg.Join("t", "teacher", true)
	m, _ := classModel(t, reg, "p1", "ann", false)
	m = sized(t, m, 120, 40)
	if m.Active() != TabRun {
		t.Fatalf("a participant opened on tab %d, want the Run tab", m.Active())
	}
	m = feed(t, m, 1, fakeRun(1))
	runs, err := teacher.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("board has %d runs (%v), want 1", len(runs), err)
	}
	r := runs[0]
	if r.Name != "ann" || r.Epsilon != 4 || r.ARI != 0.8 || r.NMI != 0.5 || r.Accountant != "RDP" || r.Unit != unitCell || r.Data == "" {
		t.Fatalf("reported %+v", r)
	}
	// A stopped run is not a result: nothing more is filed.
	evs := fakeRun(2)
	evs = evs[:len(evs)/2]
	m.c.RunID = 2
	m = feed(t, m, 2, append(evs, stoppedDone()))
	if runs, _ := teacher.Runs(); len(runs) != 1 {
		t.Fatalf("a stopped run was filed: %d runs", len(runs))
	}
}

// TestClassPushAndLoad: an instructor's push shows its message and leaves
// the participant's settings alone until L loads the preset (keeping the
// participant's own data set); the participant's Class tab shows the
// card, never the board, its P and M push nothing, and n renames, refusing
// a name another holds.
func TestClassPushAndLoad(t *testing.T) {
	reg := class.NewRegistry()
	teacher, _ := reg.Join("t", "teacher", true)
	var got []any
	stop := teacher.Listen(func(m any) { got = append(got, m) })
	defer stop()
	m, seat := classModel(t, reg, "p1", "ann", false)
	m = sized(t, m, 120, 40)
	before := runPaneOf(m).params
	pre := before
	pre.Epsilon, pre.Seed, pre.Data = 1.5, 7, "builtin:elsewhere"
	push := class.Push{Seq: 1, From: "teacher", Message: "try a small ε", Preset: &class.Preset{Summary: presetSummary(pre), Settings: saveParams(pre)}}
	m = send(t, m, push)
	if s := m.Status(); !strings.Contains(s, "teacher says: try a small ε") || !strings.Contains(s, "L loads them") {
		t.Fatalf("status after a push: %q", s)
	}
	if p := runPaneOf(m).params; p.Epsilon != before.Epsilon || p.Seed != before.Seed {
		t.Fatal("a push changed the participant's settings without L")
	}
	m = press(t, m, "tab") // another tab: L works from anywhere
	m = press(t, m, "L")
	p := runPaneOf(m).params
	if p.Epsilon != 1.5 || p.Seed != 7 || p.Data != before.Data {
		t.Fatalf("after L: ε %v seed %d data %q, want 1.5, 7 and the participant's own %q", p.Epsilon, p.Seed, p.Data, before.Data)
	}
	if m.Active() != TabRun {
		t.Fatalf("after L the tab is %d, want Run", m.Active())
	}
	// The participant's Class tab: the card, never the board; P and M
	// push nothing.
	m = press(t, m, "shift+tab")
	view := text(m)
	if !strings.Contains(view, "your name on the class board: ann") || strings.Contains(view, "Class board") || !strings.Contains(view, "loaded") {
		t.Fatalf("participant's Class tab:\n%s", view)
	}
	m = press(t, m, "P", "M", "x", "enter")
	if len(got) != 0 {
		t.Fatalf("a participant's keys pushed %v", got)
	}
	// n renames; a name another holds is refused.
	if _, err := reg.Join("p2", "ben", false); err != nil {
		t.Fatal(err)
	}
	m = press(t, m, "n", "backspace", "backspace", "backspace", "b", "e", "n", "enter")
	if seat.Name() != "ann" || !strings.Contains(m.Status(), "taken") {
		t.Fatalf("renamed to a taken name: %q, status %q", seat.Name(), m.Status())
	}
	press(t, m, "n", "backspace", "backspace", "backspace", "Z", "o", "e", "enter")
	if seat.Name() != "Zoe" {
		t.Fatalf("name %q after renaming to Zoe", seat.Name())
	}
}

// classFixture fills reg with the runs of twelve participants on two data
// sets, at fixed times.
func classFixture(t *testing.T, reg *class.Registry) {
	t.Helper()
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	names := []string{"ada", "ben", "chen", "dara", "emil", "fatou", "gus", "hana", "ivo", "jae", "kofi", "lena"}
	eps := []float64{0.25, 0.5, 1, 2, 4, 8}
	for i, n := range names {
		s, err := reg.Join("id-"+n, n, false)
		if err != nil {
			t.Fatal(err)
		}
		for j, e := range eps {
			if (i+j)%3 == 0 {
				continue
			}
			ari := math.Round((0.25+0.5*(1-math.Exp(-e/(1+float64(i%4))))+0.01*float64(i))*1000) / 1000
			data := "builtin:default"
			if j == 5 && i%2 == 0 {
				data = "builtin:pbmc_4k"
			}
			if err := s.Report(class.Run{Method: "dcan", Mode: "sound", Epsilon: e, Accountant: "RDP", Unit: "cell", Delta: 1e-5, ARI: ari, NMI: ari, Seed: uint64(j), Data: data, At: t0.Add(time.Duration(i*10+j) * time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestClassBoard: the instructor opens on the Class tab, whose board ranks
// as class.Leaderboard does; → raises the ε target, ] changes the data
// set, a late run shows on the next Changed, and M and P push a message
// and a preset to the listening sessions.
func TestClassBoard(t *testing.T) {
	reg := class.NewRegistry()
	classFixture(t, reg)
	m, _ := classModel(t, reg, "t", "teacher", true)
	m = sized(t, m, 120, 40)
	if cp := m.classPane(); m.Active() != len(m.panes)-1 || cp == nil {
		t.Fatalf("the instructor opened on tab %d", m.Active())
	}
	view := text(m)
	for _, want := range []string{"Class board", "12 participants", "Best ARI at ε ≤ 4", "data default (1 of 2"} {
		if !strings.Contains(view, want) {
			t.Fatalf("board lacks %q:\n%s", want, view)
		}
	}
	lb := class.Leaderboard(m.classPane().runs, "builtin:default", 4)
	if len(lb) == 0 || !strings.Contains(view, fmt.Sprintf("  1 %-5s %5.3f", lb[0].Name, lb[0].Best.ARI)) {
		t.Fatalf("the first line is not %+v:\n%s", lb[0], view)
	}
	// → raises the target, ] changes the data set.
	m = press(t, m, "right", "]")
	view = text(m)
	if !strings.Contains(view, "Best ARI at ε ≤ 8") || !strings.Contains(view, "data pbmc_4k (2 of 2") {
		t.Fatalf("after → and ]:\n%s", view)
	}
	// A run reported later shows when the board hears of it.
	late, _ := reg.Join("id-zed", "zed", false)
	if err := late.Report(class.Run{Epsilon: 1, ARI: 0.99, Data: "builtin:pbmc_4k", Accountant: "RDP", Unit: "cell"}); err != nil {
		t.Fatal(err)
	}
	m = send(t, m, class.Changed{})
	if view = text(m); !strings.Contains(view, "13 participants") || !strings.Contains(view, "  1 zed") {
		t.Fatalf("after a late run:\n%s", view)
	}
	// M types and pushes a message to the two listening sessions.
	var got []any
	for _, id := range []string{"id-ada", "id-ben"} {
		s, _ := reg.Join(id, "", false)
		defer s.Listen(func(m any) { got = append(got, m) })()
	}
	m = press(t, m, "M", "h", "i", "enter")
	if len(got) != 2 || got[0].(class.Push).Message != "hi" || !strings.Contains(m.Status(), "pushed to 2 sessions") {
		t.Fatalf("pushed %v, status %q", got, m.Status())
	}
	m = press(t, m, "P")
	if len(got) != 4 || got[3].(class.Push).Preset == nil {
		t.Fatalf("P pushed %v", got)
	}
}

// TestClassGoldenScreen is the instructor's Class tab at 120×40 on fixed
// runs.
func TestClassGoldenScreen(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	reg := class.NewRegistry()
	classFixture(t, reg)
	m, _ := classModel(t, reg, "t", "teacher", true)
	m = sized(t, m, 120, 40)
	checkFits(t, m.View().Content, 120, 40)
	teatest.RequireEqualOutput(t, []byte(stripANSI(m.View().Content)))
}

// stoppedDone is the end of a run the user stopped.
func stoppedDone() core.Event {
	return core.DoneEvent{Outcome: core.OutcomeStopped, Stopped: true}
}

// TestClassFits: the Class tab fits every size the interface draws in, for
// an instructor (the board stacks under 100 columns) and a participant.
func TestClassFits(t *testing.T) {
	reg := class.NewRegistry()
	classFixture(t, reg)
	for _, instructor := range []bool{true, false} {
		for _, size := range [][2]int{{MinWidth, MinHeight}, {80, 24}, {99, 30}, {160, 48}} {
			m, _ := classModel(t, reg, fmt.Sprint("s", instructor), "x", instructor)
			m = sized(t, m, size[0], size[1])
			if !instructor {
				m = send(t, m, class.Push{Seq: 9, From: "teacher", Message: strings.Repeat("long message ", 15), Preset: &class.Preset{Summary: "DP-DCAN paper · ε 4"}})
				m = press(t, m, "shift+tab")
			}
			if m.Active() != len(m.panes)-1 {
				t.Fatalf("not on the Class tab")
			}
			view := m.View().Content
			checkFits(t, view, size[0], size[1])
			want := "Best ARI at ε ≤ 4"
			if !instructor {
				want = "teacher's settings"
			}
			if !strings.Contains(stripANSI(view), want) {
				t.Errorf("%v at %v lacks %q:\n%s", instructor, size, want, stripANSI(view))
			}
		}
	}
}
