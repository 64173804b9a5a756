package dpsgd

import (
	"runtime"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/nn"
)

// TestNoiseAheadStream checks that drawing ahead changes nothing: every
// take returns exactly the next draws of the generator, in order. The
// draws the worker made ahead for the previous take's range are dropped
// when the range changes or the worker is stopped, and the stream goes on
// after them.
func TestNoiseAheadStream(t *testing.T) {
	const seed = 9
	steps := []struct {
		lo, hi  int
		stop    bool // stop the worker before this take
		dropped int  // draws made ahead and dropped before this take
	}{
		{0, 100, false, 0},
		{0, 100, false, 0},
		{20, 50, false, 100},
		{20, 50, true, 30},
		{0, 100, false, 30},
	}
	n := newNoiseAhead(newNoiseWords(seed, 2, false), 100)
	ref := normalSource{src: newNoiseWords(seed, 2, false)}
	for i, s := range steps {
		if s.stop {
			n.stop()
		}
		ref.fill(make([]float32, s.dropped))
		z := n.take(s.lo, s.hi)
		if len(z) != s.hi-s.lo {
			t.Fatalf("take %d: %d draws, want %d", i, len(z), s.hi-s.lo)
		}
		want := make([]float32, len(z))
		ref.fill(want)
		for k, v := range z {
			if v != want[k] {
				t.Fatalf("take %d [%d, %d), draw %d = %v, want %v", i, s.lo, s.hi, k, v, want[k])
			}
		}
	}
	n.stop()
	n.stop() // idempotent
}

// TestCloseEndsWorker checks that Close ends the goroutine a noisy step
// starts.
func TestCloseEndsWorker(t *testing.T) {
	f := newFixture(t, 20, 10, 8, 1, nn.Tanh, 1)
	opt, _ := nn.NewSGD(len(f.ae.Params), nn.SGDConfig{LR: 0.1})
	before := runtime.NumGoroutine()
	d, err := New(&f.ae.Net, opt, 20, Config{SampleRate: 0.5, NoiseMultiplier: 1, ClipNorm: 1,
		Perturbed: LayerRange{1, 2}, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := d.Step(f.loss); err != nil {
			t.Fatal(err)
		}
	}
	if got := runtime.NumGoroutine(); got != before+1 {
		t.Errorf("%d goroutines while stepping, want %d", got, before+1)
	}
	d.Close()
	d.Close()
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got != before {
		t.Errorf("%d goroutines after Close, want %d", got, before)
	}
}
