package sweep

import (
	"context"
	"math"
	"strings"
	"sync"

	"github.com/dpscope/dpscope/core"
)

// Outcome is what a sweep keeps of one finished run.
type Outcome struct {
	ARI, NMI *float64 // nil when the run reported none
	// Spent is the run's privacy cost: the tightest of the ε its
	// accountants report (each is a valid upper bound, e.g. exact GDP 8.0
	// beside an RDP conversion 8.6 of the same mechanisms).
	Spent float64
	// Unbounded marks a private run whose ε is no bound: its guarantee is
	// none or paper-only, or an accountant reported ε = ∞.
	Unbounded bool
	Delta     float64
	Guarantee core.Guarantee
	Stopped   bool  // ended before its schedule (interrupted, budget exhausted, …)
	Err       error // the run failed
	latest    map[string]float64
}

// Observe folds one event into the outcome; the newest value wins.
func (o *Outcome) Observe(ev core.Event) {
	switch ev := ev.(type) {
	case core.BudgetEvent:
		o.Delta = ev.Delta
		o.note(ev.Spent)
	case core.GuaranteeEvent:
		o.Guarantee = ev.Status
		o.note(ev.Audited)
	case core.MetricsEvent:
		for _, v := range ev.Values {
			val := v.Value
			switch strings.ToLower(v.Name) {
			case "ari":
				o.ARI = &val
			case "nmi":
				o.NMI = &val
			}
		}
	case core.DoneEvent:
		o.Stopped = ev.Stopped
	case core.ErrorEvent:
		o.Err = ev.Err
	}
}

// note keeps each accountant's newest ε and recomputes Spent and
// Unbounded from them.
func (o *Outcome) note(vs []core.EpsilonValue) {
	if len(vs) == 0 && o.latest == nil {
		return
	}
	if o.latest == nil {
		o.latest = map[string]float64{}
	}
	for _, e := range vs {
		o.latest[e.Accountant] = e.Epsilon
	}
	o.Spent, o.Unbounded = math.Inf(1), false
	for _, v := range o.latest {
		if math.IsNaN(v) {
			continue
		}
		o.Spent = min(o.Spent, v)
	}
	if math.IsInf(o.Spent, 1) {
		o.Spent, o.Unbounded = 0, true
	}
	o.Unbounded = o.Unbounded || o.Guarantee == core.GuaranteeNone || o.Guarantee == core.GuaranteePaperOnly
}

// Settle recomputes Spent and Unbounded from everything observed, for an
// outcome followed event by event (the guarantee may come last).
func (o *Outcome) Settle() { o.note(nil) }

// StartFunc starts one run: core.Start, or a server's queue that may wait
// for a worker or refuse the run (dpscope serve's Config.Start).
type StartFunc func(ctx context.Context, cfg core.Config) (*core.Run, error)

// RunOneWith runs cfg to its end, started by start (nil: core.Start).
// Every event goes to observe (when not nil) as well as into the
// outcome. Cancelling ctx stops the run at its next step boundary; it then
// reports Stopped.
// start gets a context that is not cancelled with ctx, so a start that
// waits in a queue waits for its worker even when ctx ends; the run then
// stops at its first step boundary.
func RunOneWith(ctx context.Context, start StartFunc, cfg core.Config, observe func(core.Event)) Outcome {
	var o Outcome
	if start == nil {
		start = core.Start
	}
	// The run gets its own context so that an interrupt lets it report
	// through Stop instead of being abandoned.
	run, err := start(context.WithoutCancel(ctx), cfg)
	if err != nil {
		o.Err = err
		return o
	}
	go func() {
		select {
		case <-ctx.Done():
			run.Stop()
		case <-run.Done():
		}
	}()
	for ev := range run.Events() {
		o.Observe(ev)
		if observe != nil {
			observe(ev)
		}
	}
	o.Settle()
	return o
}

// Execute runs points[i] for every i in todo, jobs at a time. For each
// run it calls start(i) for the event observer (nil start or nil result:
// none) and done(i, outcome) when the run ends; done calls are serialised.
// Once ctx is cancelled no new run starts and the running ones stop.
// Execute returns when every started run has ended.
func Execute(ctx context.Context, points []Point, todo []int, jobs int, start func(i int) func(core.Event), done func(i int, o Outcome)) {
	ExecuteWith(ctx, nil, points, todo, jobs, start, done)
}

// ExecuteWith is Execute with every run started by startRun (nil:
// core.Start), so that an interface under dpscope serve puts its sweeps in
// the server's queue and they count against --workers and --max-runs.
func ExecuteWith(ctx context.Context, startRun StartFunc, points []Point, todo []int, jobs int, start func(i int) func(core.Event), done func(i int, o Outcome)) {
	work := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(max(jobs, 1), max(len(todo), 1)) {
		wg.Go(func() {
			for i := range work {
				var observe func(core.Event)
				if start != nil {
					observe = start(i)
				}
				o := RunOneWith(ctx, startRun, points[i].Config, observe)
				mu.Lock()
				done(i, o)
				mu.Unlock()
			}
		})
	}
feed:
	for _, i := range todo {
		if ctx.Err() != nil {
			break // select would pick a ready worker half the time
		}
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
}
