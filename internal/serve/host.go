package serve

import (
	"context"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpscope/dpscope/core"
)

// host owns one interface, its model and its runs, for as long as the
// server keeps it: across the SSH connections that show it, and for --keep
// after the last one drops (keep.go). This is how a session finds its runs
// again: the model never lives inside a connection's tea.Program. Each
// connection runs a thin proxy program (proxy below) that hands the host
// its keys and window sizes and draws the host's view; the host runs the
// model's commands itself, so a run's events, its end and its autosave
// reach the model whether or not a connection is attached, and none is lost
// when a connection ends between a command and its message.
type host struct {
	srv    *Server
	id     string // the folder's name: the key's fingerprint, or pass-…
	byKey  bool   // a key session: found again by its key
	owner  string // the queue's owner: one per host, so a reconnected session keeps its place and its count
	ctx    context.Context
	cancel context.CancelFunc
	runs   runSet

	// mu is the model's lock: every Update and View holds it.
	mu     sync.Mutex
	model  tea.Model
	broken bool // the model panicked: never shown or stepped again

	att  atomic.Pointer[attachment] // the connection showing the host, nil while kept detached
	quit atomic.Bool                // the interface asked to quit: dropped, not kept
	// token is the line the banner shows a passphrase session (the
	// command that comes back to it), "" for a key session or --keep 0.
	token atomic.Pointer[string]

	// Guarded by the keeper's lock.
	conn     *session    // the SSH session showing the host
	expiry   *time.Timer // drops the host --keep after its last connection
	detaches int         // numbers the detaches, so a stale expiry does nothing
	dead     bool
	tokenSum [32]byte // SHA-256 of the resume token of a passphrase session
}

// attachment is one connection's program showing a host.
type attachment struct {
	prog   *tea.Program
	redraw atomic.Bool  // a redraw is on its way to prog
	width  atomic.Int64 // the terminal's width, for the banner
}

// redrawMsg asks a connection's program to draw the host's view again
// after the host's model changed outside the program.
type redrawMsg struct{}

// teaPkg is Bubble Tea's import path: messages of its types that the
// model's commands return (a quit, a terminal query, a window title) are
// the connection's business, not the model's.
var teaPkg = reflect.TypeOf(tea.QuitMsg{}).PkgPath()

// step hands msg to the model and returns its command; ok is false when
// the model is broken. A panic goes on to the caller with the host marked
// broken (the guardModel inside has logged it).
func (h *host) step(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.broken {
		return nil, false
	}
	defer func() {
		if !ok {
			h.broken = true
		}
	}()
	h.model, cmd = h.model.Update(msg)
	return cmd, true
}

// view draws the model.
func (h *host) view() (v tea.View) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.broken {
		return tea.NewView("")
	}
	ok := false
	defer func() {
		if !ok {
			h.broken = true
		}
	}()
	v = h.model.View()
	ok = true
	return v
}

// isBroken reports whether the model panicked.
func (h *host) isBroken() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.broken
}

// init runs the model's Init, once, when its first connection starts.
func (h *host) init() {
	h.run(h.initCmd())
}

// initCmd is the model's Init, marking the host broken if it panics.
func (h *host) initCmd() (cmd tea.Cmd) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ok := false
	defer func() {
		if !ok {
			h.broken = true
		}
	}()
	cmd = h.model.Init()
	ok = true
	return cmd
}

// run executes cmd on a goroutine of the host.
func (h *host) run(cmd tea.Cmd) {
	if cmd != nil {
		go h.exec(cmd)
	}
}

// exec executes cmd and delivers its message, as Bubble Tea does: a batch's
// commands concurrently, a sequence's in order. A panic in a command or in
// the model ends the host and its connection, never the server.
func (h *host) exec(cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			// A panic of the model was logged by its guardModel; one of
			// a command is logged here.
			if !h.isBroken() {
				h.srv.log.Error("panic in a command of the interface", "session", logID(h.id), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			}
			h.srv.keep.fail(h)
		}
	}()
	h.deliver(cmd())
}

// deliver hands one message of a command to where it belongs: the model,
// or, for Bubble Tea's own messages, the attached connection's program.
func (h *host) deliver(msg tea.Msg) {
	switch m := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		h.execAll(m)
		return
	case tea.QuitMsg, tea.InterruptMsg:
		// The user quit: the connection ends and the host with it.
		h.quit.Store(true)
		if a := h.att.Load(); a != nil {
			go a.prog.Send(msg)
		} else {
			h.srv.keep.drop(h, "quit")
		}
		return
	}
	if cmds, ok := sequence(msg); ok {
		for _, c := range cmds {
			if c != nil {
				h.exec(c)
			}
		}
		return
	}
	if t := reflect.TypeOf(msg); t.PkgPath() == teaPkg {
		// A terminal request (background colour, window title…): only
		// a connection can answer it; a kept host has none, and asks
		// again when one attaches.
		if a := h.att.Load(); a != nil {
			go a.prog.Send(msg)
		}
		return
	}
	cmd, ok := h.step(msg)
	if !ok {
		return
	}
	h.redraw()
	h.run(cmd)
}

// execAll executes a batch's commands concurrently and waits for them.
func (h *host) execAll(cmds []tea.Cmd) {
	var wg sync.WaitGroup
	for _, c := range cmds {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.exec(c)
		}()
	}
	wg.Wait()
}

// sequence returns the commands of a tea.Sequence message, whose type
// Bubble Tea does not export: its other slice of commands, a tea.BatchMsg,
// is not one.
func sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice || v.Type().PkgPath() != teaPkg || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() ||
		v.Type() == reflect.TypeFor[tea.BatchMsg]() {
		return nil, false
	}
	cmds := make([]tea.Cmd, v.Len())
	for i := range cmds {
		cmds[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return cmds, true
}

// redraw asks the attached program, if any, to draw the model again: at
// most one request on its way at a time.
func (h *host) redraw() {
	if a := h.att.Load(); a != nil && a.redraw.CompareAndSwap(false, true) {
		go a.prog.Send(redrawMsg{})
	}
}

// notify shows text in the interface, attached or not (a kept interface
// shows it on the next connection).
func (h *host) notify(text string) {
	if h.srv.cfg.StatusMsg != nil {
		// As a command's message: on its own goroutine (the queue calls
		// this while it hands workers out), with exec's guard.
		msg := h.srv.cfg.StatusMsg(text)
		h.run(func() tea.Msg { return msg })
	}
}

// start starts a run of the host's interface through the server's queue.
// The run outlives the connection that started it, until the host is
// dropped (ctx is the host's or derived from it).
func (h *host) start(ctx context.Context, cfg core.Config) (*core.Run, error) {
	release, err := h.admit(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	run, err := core.Start(ctx, cfg)
	if err != nil {
		release()
		h.srv.log.Info("run refused", "session", logID(h.id), "method", cfg.Method, "err", err)
		return nil, err
	}
	h.runs.add(run)
	h.srv.log.Info("run started", "session", logID(h.id), "method", cfg.Method, "data", cfg.Data, "epsilon", cfg.Epsilon)
	go func() {
		<-run.Done()
		release()
		h.runs.remove(run)
		h.srv.log.Info("run ended", "session", logID(h.id), "method", cfg.Method)
	}()
	return run, nil
}

// admit checks cfg's data and waits for a worker, telling the interface
// the run's place while it waits.
func (h *host) admit(ctx context.Context, cfg *core.Config) (release func(), err error) {
	if err := h.srv.checkData(cfg); err != nil {
		h.srv.log.Info("run refused", "session", logID(h.id), "err", err)
		return nil, err
	}
	return h.srv.queue.Acquire(ctx, h.owner, func(ahead int) {
		if ahead == 0 {
			h.notify("run queued: next in line for a worker")
		} else {
			h.notify(fmt.Sprintf("run queued: %d runs ahead of it", ahead))
		}
	})
}

// work waits for a worker for the interface's work that is not a run (the
// B1 reference line): in the server's one line, without counting against
// --max-runs (Queue.AcquireShared), telling the interface its place.
func (h *host) work(ctx context.Context) (release func(), err error) {
	return h.srv.queue.AcquireShared(ctx, func(ahead int) {
		if ahead == 0 {
			h.notify("reference line queued: next in line for a worker")
		} else {
			h.notify(fmt.Sprintf("reference line queued: %d runs ahead of it", ahead))
		}
	})
}

// proxy is the model of one connection's program: it passes the host what
// the terminal sends and draws the host's view, with the resume banner of a
// passphrase session on the last line. Its fields are set before the
// program runs.
type proxy struct {
	h     *host
	a     *attachment
	first bool // the host's first connection: the model's Init runs now
}

func (p *proxy) Init() tea.Cmd {
	if p.first {
		p.h.init()
		return nil
	}
	// Another terminal than the last one may be showing the host.
	return tea.RequestBackgroundColor
}

func (p *proxy) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case redrawMsg:
		p.a.redraw.Store(false)
		return p, nil
	case tea.WindowSizeMsg:
		p.a.width.Store(int64(m.Width))
		if p.h.token.Load() != nil {
			m.Height = max(m.Height-1, 1) // the banner's line
			msg = m
		}
	}
	if cmd, ok := p.h.step(msg); ok {
		p.h.run(cmd)
	}
	return p, nil
}

func (p *proxy) View() tea.View {
	v := p.h.view()
	if line := p.h.token.Load(); line != nil {
		w := int(p.a.width.Load())
		if w <= 0 {
			w = 80
		}
		v.Content = strings.TrimSuffix(v.Content, "\n") + "\n" + ansi.Truncate(*line, w, "…")
	}
	return v
}

// runSet is the set of a host's runs that have not ended.
type runSet struct {
	mu   sync.Mutex
	runs map[*core.Run]struct{}
}

func (s *runSet) add(r *core.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[*core.Run]struct{}{}
	}
	s.runs[r] = struct{}{}
}

func (s *runSet) remove(r *core.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.runs, r)
}

// active counts the runs going.
func (s *runSet) active() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

// stop stops every run and returns a channel closed when they have all
// ended.
func (s *runSet) stop() <-chan struct{} {
	s.mu.Lock()
	runs := make([]*core.Run, 0, len(s.runs))
	for r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	for _, r := range runs {
		r.Stop()
	}
	go func() {
		defer close(done)
		for _, r := range runs {
			<-r.Done()
		}
	}()
	return done
}
