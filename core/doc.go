// Package core is dpscope's engine: it starts runs of the registered methods
// and connects them to a watcher through a small, typed contract.
//
//	run, err := core.Start(ctx, cfg)   // validates cfg; never panics on it
//	for ev := range run.Events() { … } // closed after exactly one DoneEvent or ErrorEvent
//	run.Apply(patch)                   // a live change, taken at the next step boundary
//	run.Pause(); run.Resume(); run.Stop()
//
// A method implements Engine and registers itself with Register. Its loop
// calls Control.Checkpoint at every step (or round) boundary, where pauses
// and patches take effect, and Control.Emit to report. Emit never blocks:
// step, budget and embedding events coalesce (the newest of a kind wins while
// the watcher is behind); every other event is queued and never dropped.
//
// A run ends honestly. A panic in its engine, its factory or any goroutine
// the engine starts (through core/safe) ends that run alone, with an
// ErrorEvent. A run that stops before its schedule's end says why:
// DoneEvent.Outcome is stopped, budget-exhausted (Control.EndEarly) or
// diverged, with a Reason, and never finished. Every patch is answered,
// even one queued after the engine's last checkpoint.
//
// core knows nothing of terminals; the tui package watches runs through this
// contract only.
package core
