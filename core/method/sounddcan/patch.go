package sounddcan

import (
	"context"
	"fmt"
)

// withCheckpoints wraps the step hook with a checkpoint (pause, patches)
// before the next step; a cancelled context ends the fit at its next check.
func (r *runner) withCheckpoints(ctx context.Context, hk Hooks) Hooks {
	step := hk.Step
	hk.Step = func(s int, loss float64) {
		step(s, loss)
		_ = r.checkpoint(ctx) // a cancellation is seen by Fit's own ctx check
	}
	return hk
}

// checkpoint takes pauses and answers every patch as rejected.
func (r *runner) checkpoint(ctx context.Context) error {
	patches, err := r.ctl.Checkpoint(ctx)
	if err != nil {
		return err
	}
	for _, p := range patches {
		r.ctl.Rejected(p, r.step+1, fmt.Errorf("dcan-sound takes no live patches: its noise is planned for the whole run in advance; start a new run instead"))
	}
	return nil
}
