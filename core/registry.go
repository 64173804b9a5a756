package core

import (
	"context"
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
	mu      sync.RWMutex
	methods map[string]Method
	seq     map[string]int // registration order, for a stable list
	next    int
}

// familyRank orders method lists: the families in the order the methods
// were added to dpscope.
var familyRank = map[Family]int{FamilyDPSGD: 0, FamilyDenoising: 1, FamilyFederated: 2, FamilyClustering: 3}

// Register makes a method available to Start and to the faces under
// m.Name. It panics when the descriptor is malformed or the name is already
// registered: both are programming errors, found by the first test that
// imports the package.
func Register(m Method) {
	if len(m.Modes) == 0 {
		m.Modes = []Mode{ModeNonPrivate, ModePaper, ModeSound}
	}
	if err := m.check(); err != nil {
		panic("core: Register: " + err.Error())
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if _, dup := registry.methods[m.Name]; dup {
		panic("core: method " + m.Name + " registered twice")
	}
	if registry.methods == nil {
		registry.methods, registry.seq = map[string]Method{}, map[string]int{}
	}
	m.Modes, m.Presets, m.Options = slices.Clone(m.Modes), slices.Clone(m.Presets), slices.Clone(m.Options)
	registry.methods[m.Name] = m
	registry.seq[m.Name] = registry.next
	registry.next++
}

// Methods returns the registered methods' descriptors, by family, then in
// the order they were registered.
func Methods() []Method {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	out := make([]Method, 0, len(registry.methods))
	for _, m := range registry.methods {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Method) int {
		if d := familyRank[a.Family] - familyRank[b.Family]; d != 0 {
			return d
		}
		return registry.seq[a.Name] - registry.seq[b.Name]
	})
	return out
}

// DefaultEntry returns the method and preset marked Default, the first in
// Methods order when several are; ok is false when none is.
func DefaultEntry() (m Method, p Preset, ok bool) {
	for _, m := range Methods() {
		for _, p := range m.Entries() {
			if p.Default {
				return m, p, true
			}
		}
	}
	return Method{}, Preset{}, false
}

// MethodNames returns the registered method names, sorted.
func MethodNames() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	names := make([]string, 0, len(registry.methods))
	for n := range registry.methods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// LookupMethod returns the descriptor registered under name, or an error
// wrapping ErrBadConfig that lists the registered names.
func LookupMethod(name string) (Method, error) {
	registry.mu.RLock()
	m, ok := registry.methods[name]
	registry.mu.RUnlock()
	switch {
	case name == "":
		return Method{}, badf("method is empty, must be one of %v", MethodNames())
	case !ok:
		return Method{}, badf("method is %q, must be one of %v", name, MethodNames())
	}
	return m, nil
}
