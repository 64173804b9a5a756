package core

import (
	"context"
	"sync"
)

// Control is an engine's side of a run: it reports through Emit and takes
// pauses and patches at Checkpoint. Safe for concurrent use.
type Control struct {
	bus *bus
	// specs are the method's options: the Live ones are the Patch.Options
	// keys the engine takes.
	specs []OptionSpec

	mu      sync.Mutex
	patches []Patch
	paused  bool
	resume  chan struct{} // closed and replaced on every resume
	stop    bool
	early   Outcome // set by EndEarly; "" when the run goes to its end
	reason  string
}

func newControl(b *bus) *Control {
	return &Control{bus: b, resume: make(chan struct{})}
}

// Emit reports ev to the watcher. It never blocks.
func (c *Control) Emit(ev Event) { c.bus.emit(ev) }

// Checkpoint is called by the engine at every step boundary. It waits while
// the run is paused, then returns the patches queued since the last call,
// already validated (invalid ones are answered with a PatchEvent and left
// out). The engine applies them, then acknowledges each with Applied. It
// returns ctx.Err() when the run is cancelled.
func (c *Control) Checkpoint(ctx context.Context) ([]Patch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.mu.Lock()
		if !c.paused {
			ps := c.patches
			c.patches = nil
			c.mu.Unlock()
			valid := ps[:0]
			for _, p := range ps {
				err := p.Validate()
				if err == nil {
					err = p.checkOptions(c.specs)
				}
				if err != nil {
					c.Emit(PatchEvent{Patch: p, Err: err.Error()})
					continue
				}
				valid = append(valid, p)
			}
			return valid, nil
		}
		wait := c.resume
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Applied acknowledges a patch that took effect from step on as asked.
func (c *Control) Applied(p Patch, step int) {
	c.Emit(PatchEvent{Patch: p, Step: step, Applied: true})
}

// AppliedAs acknowledges a patch that took effect from step on as
// effective (e.g. a new ε target with the σ solved for it).
func (c *Control) AppliedAs(p, effective Patch, step int) {
	c.Emit(PatchEvent{Patch: p, Step: step, Applied: true, Effective: &effective})
}

// Rejected answers a patch the method cannot take, with the reason.
func (c *Control) Rejected(p Patch, step int, err error) {
	c.Emit(PatchEvent{Patch: p, Step: step, Err: err.Error()})
}

// EndEarly records that the engine ends before its schedule's end, and
// why: the DoneEvent then carries outcome and reason instead of "finished".
// The engine still returns nil (and may emit its results first). The first
// call wins; outcome OutcomeFinished is ignored.
func (c *Control) EndEarly(outcome Outcome, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.early == "" && outcome != OutcomeFinished && outcome != "" {
		c.early, c.reason = outcome, reason
	}
}

// takeQueued removes and returns the patches not yet taken by a Checkpoint.
func (c *Control) takeQueued() []Patch {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.patches
	c.patches = nil
	return ps
}

// endedEarly returns what EndEarly recorded.
func (c *Control) endedEarly() (Outcome, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.early, c.reason
}

func (c *Control) queue(p Patch) {
	c.mu.Lock()
	c.patches = append(c.patches, p)
	c.mu.Unlock()
}

func (c *Control) setPaused(p bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused && !p {
		close(c.resume)
		c.resume = make(chan struct{})
	}
	c.paused = p
}

func (c *Control) isPaused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused
}

func (c *Control) requestStop() {
	c.mu.Lock()
	c.stop = true
	c.mu.Unlock()
}

func (c *Control) stopRequested() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stop
}
