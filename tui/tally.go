package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
)

// sessionTally adds up every private release the session made on each data
// set — runs and Trade-off sweeps alike — because exploring costs privacy:
// an ε picked after looking at several runs is covered only by their total
// (DECISIONS, "Exploring costs privacy"). Releases about one cell and
// about one client's data are added up apart: their ε are of different
// units (units.go).
type sessionTally struct {
	byData  map[string]*sweep.Cost // releases whose unit is one cell
	clients map[string]*sweep.Cost // releases whose unit is one client's data
	run     sweep.Outcome          // the current run, as it goes
	cfg     core.Config            // the current run's config
}

func newSessionTally() *sessionTally {
	return &sessionTally{byData: map[string]*sweep.Cost{}, clients: map[string]*sweep.Cost{}}
}

// privateReleaseMsg reports a finished private run made outside the
// session's own run (a Trade-off sweep's).
type privateReleaseMsg struct {
	data string
	unit string // unitCell or unitClient
	o    sweep.Outcome
}

// releaseCmd reports a sweep's private run of cfg to the tally.
func releaseCmd(cfg core.Config, o sweep.Outcome) tea.Cmd {
	return func() tea.Msg { return privateReleaseMsg{data: cfg.Data, unit: unitOfConfig(cfg), o: o} }
}

// start follows a new run of cfg.
func (t *sessionTally) start(cfg core.Config) { t.run, t.cfg = sweep.Outcome{}, cfg }

// observe follows the current run's events.
func (t *sessionTally) observe(evs []core.Event) {
	for _, ev := range evs {
		t.run.Observe(ev)
	}
}

// closeRun adds the current run when it was private and spent anything.
func (t *sessionTally) closeRun() {
	t.run.Settle()
	if t.cfg.Mode != core.ModeNonPrivate && (t.run.Spent > 0 || t.run.Unbounded) {
		t.add(t.cfg.Data, unitOfConfig(t.cfg), t.run)
	}
	t.cfg = core.Config{}
}

// add composes one private release about unit on data (basic
// composition, within the unit).
func (t *sessionTally) add(data, unit string, o sweep.Outcome) {
	by := t.byData
	if unit == unitClient {
		by = t.clients
	}
	c := by[data]
	if c == nil {
		c = &sweep.Cost{Composition: sweep.CostComposition}
		by[data] = c
	}
	compose(c, o)
}

// costs returns every data set's cost about unit (unitCell or unitClient)
// with the going run's spend so far composed in when it is about the same
// unit: a session saved (autosaved) while a run goes, then cut short, must
// still count what that run released.
func (t *sessionTally) costs(unit string) map[string]sweep.Cost {
	by := t.byData
	if unit == unitClient {
		by = t.clients
	}
	out := make(map[string]sweep.Cost, len(by)+1)
	for d, c := range by {
		out[d] = *c
	}
	if t.cfg.Data != "" && t.cfg.Mode != core.ModeNonPrivate && unitOfConfig(t.cfg) == unit {
		o := t.run
		o.Settle()
		if o.Spent > 0 || o.Unbounded {
			c, ok := out[t.cfg.Data]
			if !ok {
				c = sweep.Cost{Composition: sweep.CostComposition}
			}
			compose(&c, o)
			out[t.cfg.Data] = c
		}
	}
	return out
}

// compose adds one private release to c.
func compose(c *sweep.Cost, o sweep.Outcome) {
	c.PrivateRuns++
	if o.Unbounded {
		c.Unbounded++
	}
	c.EpsilonTotal += o.Spent
	c.DeltaTotal += o.Delta
}

// line is the header's note on data, or "" before any private release:
// one total per privacy unit, each named.
func (t *sessionTally) line(data string) string {
	var parts []string
	for _, u := range []struct {
		c    *sweep.Cost
		unit string
	}{{t.byData[data], unitCell}, {t.clients[data], unitClient}} {
		c := u.c
		if c == nil {
			continue
		}
		runs := fmt.Sprintf("%d private runs", c.PrivateRuns)
		if c.PrivateRuns == 1 {
			runs = "1 private run"
		}
		if c.Unbounded > 0 {
			parts = append(parts, fmt.Sprintf("%s, %d without a bound (one %s)", runs, c.Unbounded, u.unit))
		} else {
			// The total is basic composition (the runs' ε summed): named,
			// as every ε on screen names what produced it.
			parts = append(parts, fmt.Sprintf("%s, together ε ≤ %.3g (sum, one %s)", runs, c.EpsilonTotal, u.unit))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "session: " + strings.Join(parts, "; ")
}
