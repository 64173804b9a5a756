package core

import (
	"context"
	"reflect"
	"sync"
)

// bus carries events from an engine to its watcher without ever blocking
// the engine. Queued events keep their order; a coalescing event replaces a
// pending one of the same kind and takes its place at the back.
//
// Safe for concurrent use by one emitter and one forwarder.
type bus struct {
	mu      sync.Mutex
	pending []pendingEvent
	closed  bool
	wake    chan struct{} // capacity 1: "something changed"
	out     chan Event
	keepAll bool // never coalesce
}

type pendingEvent struct {
	ev   Event
	kind reflect.Type
}

// outBuffer is the watcher-side channel buffer (STYLE.md: about 64).
const outBuffer = 64

func newBus(keepAll bool) *bus {
	return &bus{wake: make(chan struct{}, 1), out: make(chan Event, outBuffer), keepAll: keepAll}
}

// emit adds ev to the pending events. It never blocks. After close, emit
// drops ev.
func (b *bus) emit(ev Event) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	p := pendingEvent{ev: ev, kind: reflect.TypeOf(ev)}
	if ev.coalesces() && !b.keepAll {
		for i, q := range b.pending {
			if q.kind == p.kind {
				b.pending = append(b.pending[:i], b.pending[i+1:]...)
				break
			}
		}
	}
	b.pending = append(b.pending, p)
	b.mu.Unlock()
	b.signal()
}

// close ends emission: the forwarder delivers what is pending, then closes
// the output channel.
func (b *bus) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.signal()
}

func (b *bus) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// forward delivers pending events to out in order until the bus is closed
// and drained, or abandon is done; then it closes out. It is the only
// sender on out.
func (b *bus) forward(abandon context.Context) {
	defer close(b.out)
	for {
		b.mu.Lock()
		if len(b.pending) == 0 {
			closed := b.closed
			b.mu.Unlock()
			if closed {
				return
			}
			select {
			case <-b.wake:
				continue
			case <-abandon.Done():
				return
			}
		}
		next := b.pending[0]
		b.pending = b.pending[1:]
		b.mu.Unlock()
		select {
		case b.out <- next.ev:
		case <-abandon.Done():
			return
		}
	}
}
