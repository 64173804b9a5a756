package serve

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// keeper is the server's register of interfaces (hosts, host.go) and of how
// they are found again (issue 20 point 4; DECISIONS "Serving"): a session
// that disconnects keeps its interface, its runs going or queued and their
// results for Config.Keep; within it, a new connection with the same public
// key (the same folder, named by the key's fingerprint) gets the interface
// back, and a passphrase session gets it back only with the one-time token
// its screen showed (`ssh -t -p PORT HOST resume TOKEN`, resume.go). After
// Keep the interface is dropped: its runs are cancelled, and what it saved
// in its folder (its autosave) stays under the usual pruning. A second
// connection with the same key takes the interface over and closes the
// first: after a dropped connection the server may not know yet that the
// first is gone. Keep 0 drops the interface with its connection.
type keeper struct {
	srv  *Server
	keep time.Duration

	mu       sync.Mutex
	byID     map[string]*host // key sessions' hosts, by folder
	hosts    map[*host]struct{}
	draining bool
}

func newKeeper(s *Server, keep time.Duration) *keeper {
	return &keeper{srv: s, keep: keep, byID: map[string]*host{}, hosts: map[*host]struct{}{}}
}

// attach returns the host that se's connection a shows and whether this is
// its first connection: resumed (found by its token), the key's kept host,
// or a new one. It returns nil when the interface cannot be built.
func (k *keeper) attach(se *session, resumed *host, a *attachment) (*host, bool) {
	byKey := strings.HasPrefix(se.id, "key-")
	k.mu.Lock()
	h := resumed
	if h == nil && byKey && k.keep > 0 {
		h = k.byID[se.id]
	}
	if h != nil && !h.dead && !k.draining {
		k.bind(h, se, a)
		runs := h.runs.active()
		k.mu.Unlock()
		how := map[bool]string{true: "key", false: "token"}[h.byKey]
		// No note on the screen: the status line keeps what last
		// happened (often "run finished"), which says more.
		k.srv.log.Info("kept session resumed", "session", logID(h.id), "by", how, "connection", logID(se.id), "runs", runs)
		return h, false
	}
	k.mu.Unlock()
	h = k.newHost(se, byKey)
	if h == nil {
		return nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.hosts[h] = struct{}{}
	if byKey && k.keep > 0 {
		// A connection with the same key that raced this one loses its
		// place in the register and is dropped when it ends.
		k.byID[h.id] = h
	}
	k.bind(h, se, a)
	return h, true
}

// newHost builds a new interface for se. Called without the lock: building
// a model takes time.
func (k *keeper) newHost(se *session, byKey bool) *host {
	ctx, cancel := context.WithCancel(context.Background())
	h := &host{srv: k.srv, id: se.id, byKey: byKey, ctx: ctx, cancel: cancel}
	h.owner = fmt.Sprintf("%s#%d", h.id, sessionSeq.Add(1))
	info := se.info()
	info.Context, info.Start, info.Admit = ctx, h.start, h.work
	info.Class = k.srv.seat(se)
	m := k.srv.cfg.NewModel(info)
	if m == nil {
		cancel()
		return nil
	}
	k.srv.listenClass(info.Class, h)
	h.model = guardModel{inner: m, log: k.srv.log, id: h.id}
	if !byKey && k.keep > 0 {
		k.newToken(h)
	}
	return h
}

// bind shows h on se's connection a, closing the connection that showed it
// until now, if any, and stops its expiry. Called with mu held.
func (k *keeper) bind(h *host, se *session, a *attachment) {
	if old := h.conn; old != nil && old != se {
		old.end("taken over by a new connection")
	}
	h.conn = se
	h.att.Store(a)
	if h.expiry != nil {
		h.expiry.Stop()
		h.expiry = nil
	}
}

// detach notes that se's connection a, which showed h, ended: h is kept
// for Keep, or dropped (Keep 0, a quit, a broken model, a drain).
func (k *keeper) detach(h *host, se *session, a *attachment) {
	k.mu.Lock()
	if h.conn != se || h.dead {
		k.mu.Unlock()
		return // taken over by another connection, or dropped
	}
	h.conn = nil
	h.att.CompareAndSwap(a, nil)
	why := ""
	switch {
	case k.keep <= 0:
		why = "disconnected (--keep 0)"
	case h.quit.Load():
		why = "quit"
	case h.isBroken():
		why = "failed"
	case k.draining:
		why = "the server stopped"
	case h.byKey && k.byID[h.id] != h:
		why = "replaced by another connection with the same key"
	}
	if why != "" {
		k.dropLocked(h)
		k.mu.Unlock()
		k.ended(h, why)
		return
	}
	h.detaches++
	n := h.detaches
	h.expiry = time.AfterFunc(k.keep, func() { k.expire(h, n) })
	k.mu.Unlock()
	k.srv.log.Info("session kept", "session", logID(h.id), "runs", h.runs.active(), "keep", k.keep.String())
}

// expire drops h if it is still detached since its detach number n.
func (k *keeper) expire(h *host, n int) {
	k.mu.Lock()
	if h.dead || h.conn != nil || h.detaches != n {
		k.mu.Unlock()
		return
	}
	k.dropLocked(h)
	k.mu.Unlock()
	k.ended(h, fmt.Sprintf("not resumed within --keep %v", k.keep))
}

// drop forgets h and cancels its runs, for why.
func (k *keeper) drop(h *host, why string) {
	k.mu.Lock()
	if h.dead {
		k.mu.Unlock()
		return
	}
	k.dropLocked(h)
	k.mu.Unlock()
	k.ended(h, why)
}

// fail drops h after a panic and ends the connection showing it.
func (k *keeper) fail(h *host) {
	k.mu.Lock()
	conn := h.conn
	dead := h.dead
	k.dropLocked(h)
	k.mu.Unlock()
	if conn != nil {
		conn.end("ended by an internal error (the server goes on)")
	}
	if !dead {
		k.ended(h, "failed")
	}
}

// dropLocked takes h out of the register. Called with mu held.
func (k *keeper) dropLocked(h *host) {
	h.dead = true
	delete(k.hosts, h)
	if k.byID[h.id] == h {
		delete(k.byID, h.id)
	}
	if h.expiry != nil {
		h.expiry.Stop()
		h.expiry = nil
	}
}

// ended cancels a dropped host's context, which stops its runs (a queued
// one leaves the queue), and logs why.
func (k *keeper) ended(h *host, why string) {
	runs := h.runs.active()
	h.cancel()
	k.srv.log.Info("kept session dropped", "session", logID(h.id), "why", why, "runs_cancelled", runs)
}

// drain refuses to keep anything more, stops the runs of every host and
// waits up to wait for them to end, so that each interface records how far
// its runs got.
func (k *keeper) drain(wait time.Duration) {
	k.mu.Lock()
	k.draining = true
	hosts := make([]*host, 0, len(k.hosts))
	for h := range k.hosts {
		hosts = append(hosts, h)
	}
	k.mu.Unlock()
	timeout := time.After(wait)
	dones := make([]<-chan struct{}, len(hosts))
	for i, h := range hosts {
		dones[i] = h.runs.stop()
	}
	for _, d := range dones {
		select {
		case <-d:
		case <-timeout:
			return
		}
	}
}

// dropAll drops every host (the server is stopping).
func (k *keeper) dropAll(why string) {
	k.mu.Lock()
	hosts := make([]*host, 0, len(k.hosts))
	for h := range k.hosts {
		hosts = append(hosts, h)
		k.dropLocked(h)
	}
	k.mu.Unlock()
	for _, h := range hosts {
		k.ended(h, why)
	}
}

// fmtKeep writes d the short way a user reads it: 1h, 30m, 1m30s.
func fmtKeep(d time.Duration) string {
	switch {
	case d > 0 && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d > 0 && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}
