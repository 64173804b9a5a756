// Package memo is a bounded, concurrency-safe cache of pure computations:
// concurrent requests for the same key share one computation
// (singleflight), and the least recently used results are dropped past a
// size. dpscope serve runs one interface per SSH session; without it 20–40
// sessions opening the Planner would each account the same curves.
package memo

import (
	"container/list"
	"sync"
)

// Cache memoizes f(key) for up to its size keys. Values must be treated as
// read-only by callers, since every caller of a key gets the same value.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	size  int
	order *list.List // of K, most recently used first
	byKey map[K]*entry[V]
}

type entry[V any] struct {
	done chan struct{} // closed when val is set
	val  V
	elem *list.Element
}

// New returns a cache of up to size results (at least 1).
func New[K comparable, V any](size int) *Cache[K, V] {
	return &Cache[K, V]{size: max(size, 1), order: list.New(), byKey: map[K]*entry[V]{}}
}

// Get returns f's value for key, computing it once: a caller that finds
// the key being computed waits for that computation rather than starting
// its own. f must be a pure function of key.
func (c *Cache[K, V]) Get(key K, f func() V) V {
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e.elem)
		c.mu.Unlock()
		<-e.done
		return e.val
	}
	e := &entry[V]{done: make(chan struct{})}
	e.elem = c.order.PushFront(key)
	c.byKey[key] = e
	for c.order.Len() > c.size {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.byKey, old.Value.(K)) // waiters on it still hold the entry
	}
	c.mu.Unlock()
	// A panic in f would leave waiters blocked: close done whatever happens,
	// and forget the key so that the next caller computes it afresh.
	ok := false
	defer func() {
		close(e.done)
		if !ok {
			c.mu.Lock()
			if c.byKey[key] == e {
				c.order.Remove(e.elem)
				delete(c.byKey, key)
			}
			c.mu.Unlock()
		}
	}()
	e.val = f()
	ok = true
	return e.val
}

// Len is how many results the cache holds or is computing.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
