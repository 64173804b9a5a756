package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/sweep"
)

// sessionTally adds up every private release the session made on each data
// set — runs and Trade-off sweeps alike — because exploring costs privacy:
// an ε picked after looking at several runs is covered only by their total
// (DECISIONS, "Exploring costs privacy").
type sessionTally struct {
	byData map[string]*sweep.Cost
	run    sweep.Outcome // the current run, as it goes
	cfg    core.Config   // the current run's config
}

func newSessionTally() *sessionTally { return &sessionTally{byData: map[string]*sweep.Cost{}} }

// privateReleaseMsg reports a finished private run made outside the
// session's own run (a Trade-off sweep's).
type privateReleaseMsg struct {
	data string
	o    sweep.Outcome
}

// releaseCmd reports a sweep's private run to the tally.
func releaseCmd(data string, o sweep.Outcome) tea.Cmd {
	return func() tea.Msg { return privateReleaseMsg{data: data, o: o} }
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
		t.add(t.cfg.Data, t.run)
	}
	t.cfg = core.Config{}
}

// add composes one private release on data (basic composition).
func (t *sessionTally) add(data string, o sweep.Outcome) {
	c := t.byData[data]
	if c == nil {
		c = &sweep.Cost{Composition: sweep.CostComposition}
		t.byData[data] = c
	}
	compose(c, o)
}

// costs returns every data set's cost with the going run's spend so far
// composed in: a session saved (autosaved) while a run goes, then cut
// short, must still count what that run released.
func (t *sessionTally) costs() map[string]sweep.Cost {
	out := make(map[string]sweep.Cost, len(t.byData)+1)
	for d, c := range t.byData {
		out[d] = *c
	}
	if t.cfg.Data != "" && t.cfg.Mode != core.ModeNonPrivate {
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

// line is the header's note on data, or "" before any private release.
func (t *sessionTally) line(data string) string {
	c := t.byData[data]
	if c == nil {
		return ""
	}
	runs := fmt.Sprintf("%d private runs", c.PrivateRuns)
	if c.PrivateRuns == 1 {
		runs = "1 private run"
	}
	if c.Unbounded > 0 {
		return fmt.Sprintf("session: %s, %d without a bound", runs, c.Unbounded)
	}
	return fmt.Sprintf("session: %s, together ε ≤ %.3g", runs, c.EpsilonTotal)
}
