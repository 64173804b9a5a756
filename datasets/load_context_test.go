package datasets

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// countdownCtx is a context that turns cancelled after its Err has been
// asked limit times: it cancels a load at a known point of its parsing,
// with no timing involved, and counts the checks made after it.
type countdownCtx struct {
	context.Context
	limit, calls int64
	done         chan struct{}
}

func newCountdown(limit int64) *countdownCtx {
	return &countdownCtx{Context: context.Background(), limit: limit, done: make(chan struct{})}
}

func (c *countdownCtx) Done() <-chan struct{} { return c.done }

func (c *countdownCtx) Err() error {
	if atomic.AddInt64(&c.calls, 1) > c.limit {
		return context.Canceled
	}
	return nil
}

// writeLargeMTX writes a 10x folder of genes × cells with perCell entries
// per cell: ~12 bytes a line, so 3000 × 200 entries are ~7 MB, about a
// hundred 64 KiB reads.
func writeLargeMTX(t testing.TB, dir string, genes, cells, perCell int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "matrix.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n", genes, cells, cells*perCell)
	for c := 1; c <= cells; c++ {
		for k := 0; k < perCell; k++ {
			fmt.Fprintf(w, "%d %d %d\n", (c*7+k*13)%genes+1, c, 1+(c+k)%5)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fw, _ := os.Create(filepath.Join(dir, "features.tsv"))
	for g := 1; g <= genes; g++ {
		fmt.Fprintf(fw, "ENSG%05d\tG%d\n", g, g)
	}
	fw.Close()
	bw, _ := os.Create(filepath.Join(dir, "barcodes.tsv"))
	for c := 1; c <= cells; c++ {
		fmt.Fprintf(bw, "cell%05d\n", c)
	}
	bw.Close()
}

// TestLoadContextCancelsMTX cancels the load of a ~7 MB MTX folder partway
// through its matrix: the load returns context.Canceled at the next check
// (at most two more), where reading it to its end takes ~25 more (each read is a 256 KiB block); the
// same load with a live context reads it whole. The wall time from the
// cancellation to the return is logged, not asserted.
func TestLoadContextCancelsMTX(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big")
	writeLargeMTX(t, dir, 2000, 3000, 200)
	opts := DefaultLoadOptions()
	opts.Preprocess.NTopGenes = 100

	live := newCountdown(1 << 40)
	if p, err := LoadPreprocessedContext(live, dir, opts); err != nil || p.Raw.Cells() != 3000 {
		t.Fatalf("uncancelled load: %v", err)
	}
	full := atomic.LoadInt64(&live.calls)
	if full < 20 {
		t.Fatalf("a whole load checks its context %d times: too few for a cut partway to mean anything", full)
	}
	for _, limit := range []int64{1, 10, full / 2} {
		ctx := newCountdown(limit)
		start := time.Now()
		p, err := LoadPreprocessedContext(ctx, dir, opts)
		if !errors.Is(err, context.Canceled) || p != nil {
			t.Fatalf("cancelled after %d checks: %v, %v; want context.Canceled", limit, p, err)
		}
		if after := atomic.LoadInt64(&ctx.calls) - limit; after > 2 {
			t.Errorf("cancelled after %d checks: %d more checks before returning, want ≤ 2", limit, after)
		}
		t.Logf("cancelled after %d of %d checks: returned in %v", limit, full, time.Since(start))
	}
	// Preprocessing stops between its steps.
	d, err := Open(dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PreprocessContext(cancelled, d, opts.Preprocess); !errors.Is(err, context.Canceled) {
		t.Errorf("preprocess with a cancelled context: %v", err)
	}
	if _, _, err := LoadContext(cancelled, "builtin:toy", OpenOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("builtin load with a cancelled context: %v", err)
	}
}

// TestLoadContextRealCancel cancels a load from another goroutine while
// it parses, as the TUI's ctrl+c does: when the load had not finished
// first, it returns context.Canceled.
func TestLoadContextRealCancel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big")
	writeLargeMTX(t, dir, 2000, 3000, 200)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var finished atomic.Bool
	go func() {
		_, _, err := LoadContext(ctx, dir, OpenOptions{})
		finished.Store(true)
		done <- err
	}()
	time.Sleep(5 * time.Millisecond)
	early := finished.Load()
	start := time.Now()
	cancel()
	err := <-done
	if !early && !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled mid-load: %v, want context.Canceled", err)
	}
	t.Logf("returned %v after the cancel (finished before it: %v)", time.Since(start), early)
}

// BenchmarkLoadCancelLatency measures how long a load of a ~7 MB MTX
// folder takes to return once its context is cancelled mid-parse (5 ms
// in): the figure ctrl+c in the data picker waits for.
func BenchmarkLoadCancelLatency(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "big")
	writeLargeMTX(b, dir, 2000, 3000, 200)
	var total time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan time.Time, 1)
		go func() {
			_, _, _ = LoadContext(ctx, dir, OpenOptions{})
			done <- time.Now()
		}()
		time.Sleep(5 * time.Millisecond)
		at := time.Now()
		cancel()
		total += (<-done).Sub(at)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/cancel")
}
