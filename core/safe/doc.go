// Package safe turns a panic into an error, so that a bug in one run (or in
// one worker goroutine of a run) ends that run with an error event instead
// of killing the process and every other run with it.
//
// A panic cannot be recovered from another goroutine: every goroutine a run
// starts must run its body through Call (or Func, for errgroup.Go).
package safe
