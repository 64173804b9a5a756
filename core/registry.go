package core

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Engine is one method's loop. Run trains (or denoises) until its schedule
// ends, ctx is cancelled, or it fails. It reports through ctl.Emit and calls
// ctl.Checkpoint at every step boundary, applying the patches it returns.
//
// Run returns nil when its schedule is done, ctx.Err() when cancelled, and a
// wrapped error otherwise. It must not emit DoneEvent or ErrorEvent: the Run
// does. No goroutine it starts may outlive it.
type Engine interface {
	Run(ctx context.Context, ctl *Control) error
}

// Factory builds an engine for a validated config, or returns an error that
// says which field the method cannot accept.
type Factory func(cfg Config) (Engine, error)

var registry struct {
	mu        sync.RWMutex
	factories map[string]Factory
}

// Register makes a method available to Start under name. It panics when
// name is empty or already registered: both are programming errors.
func Register(name string, f Factory) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if name == "" || f == nil {
		panic("core: Register with an empty name or nil factory")
	}
	if _, dup := registry.factories[name]; dup {
		panic("core: method " + name + " registered twice")
	}
	if registry.factories == nil {
		registry.factories = map[string]Factory{}
	}
	registry.factories[name] = f
}

// Methods returns the registered method names, sorted.
func Methods() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	names := make([]string, 0, len(registry.factories))
	for n := range registry.factories {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func lookup(name string) (Factory, error) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	f, ok := registry.factories[name]
	if !ok {
		return nil, badf("method is %q, must be one of %v", name, Methods())
	}
	return f, nil
}

// unregister removes a method; for tests only.
func unregister(name string) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	delete(registry.factories, name)
}

// errorf wraps a method's error with its name.
func errorf(method string, err error) error { return fmt.Errorf("core: %s: %w", method, err) }
