package reference

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCacheAdmit: a B1 that is not cached waits for Admit's worker and
// frees it once computed; eight concurrent requests for the same data set
// take one worker and compute once; a cached B1 takes none; a refusal is
// the request's error.
func TestCacheAdmit(t *testing.T) {
	gate := make(chan struct{})
	var asked, freed atomic.Int32
	c := Cache{Dir: t.TempDir(), Admit: func(ctx context.Context) (func(), error) {
		asked.Add(1)
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return func() { freed.Add(1) }, nil
	}}
	p := toy()
	want, err := B1(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var done atomic.Int32
	for range 8 {
		wg.Go(func() {
			got, err := c.B1(context.Background(), p)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("B1 = %+v, %v; want %+v", got, err, want)
			}
			done.Add(1)
		})
	}
	for end := time.Now().Add(60 * time.Second); asked.Load() == 0 && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the others reach the wait, were they to compute too
	if n := done.Load(); n != 0 {
		t.Fatalf("%d requests returned before a worker was free", n)
	}
	close(gate)
	wg.Wait()
	if a, f := asked.Load(), freed.Load(); a != 1 || f != 1 {
		t.Errorf("admit asked %d times, freed %d; want one worker for the eight requests", a, f)
	}
	if _, err := c.B1(context.Background(), p); err != nil || asked.Load() != 1 {
		t.Errorf("a cached B1 asked for a worker (%d asks), err %v", asked.Load(), err)
	}

	refused := errors.New("queue full")
	r := Cache{Dir: t.TempDir(), Admit: func(context.Context) (func(), error) { return nil, refused }}
	if _, err := r.B1(context.Background(), p); !errors.Is(err, refused) {
		t.Errorf("refused admit: err %v, want %v", err, refused)
	}
}
