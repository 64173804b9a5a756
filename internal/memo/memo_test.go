package memo

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestConcurrentCallersShareOneComputation: 40 goroutines asking for the
// same key run f once and all get its value.
func TestConcurrentCallersShareOneComputation(t *testing.T) {
	c := New[int, int](4)
	var calls atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]int, 40)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = c.Get(7, func() int {
				calls.Add(1)
				<-release // hold the computation so the others arrive during it
				return 49
			})
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("f ran %d times, want 1", n)
	}
	for i, v := range got {
		if v != 49 {
			t.Fatalf("caller %d got %d, want 49", i, v)
		}
	}
}

// TestLRUEviction: past its size the least recently used key goes, and a
// key used since stays.
func TestLRUEviction(t *testing.T) {
	c := New[string, int](2)
	calls := map[string]int{}
	get := func(k string) int {
		return c.Get(k, func() int { calls[k]++; return len(k) })
	}
	get("a")
	get("bb")
	get("a") // a is now the most recent
	get("ccc")
	if c.Len() != 2 {
		t.Fatalf("Len %d, want 2", c.Len())
	}
	get("a")
	get("bb")
	if calls["a"] != 1 || calls["bb"] != 2 || calls["ccc"] != 1 {
		t.Errorf("calls %v, want a once, bb twice (evicted), ccc once", calls)
	}
}

// TestPanicForgetsKey: a panicking computation does not block or poison
// the key; the next caller computes it.
func TestPanicForgetsKey(t *testing.T) {
	c := New[int, int](2)
	func() {
		defer func() { recover() }()
		c.Get(1, func() int { panic("boom") })
	}()
	if c.Len() != 0 {
		t.Errorf("Len %d after a panic, want 0", c.Len())
	}
	if v := c.Get(1, func() int { return 5 }); v != 5 {
		t.Errorf("got %d after the panic, want 5", v)
	}
}
