package serve

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/dpscope/dpscope/core"
	_ "github.com/dpscope/dpscope/core/method/dppca" // the cheap method the sessions run
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/tui"
)

// loadSessions is how many sessions TestSessionsLoad drives: 3 in a normal
// `go test`, 20 (the workshop) with DPSCOPE_SERVE_LOAD=1, or the
// number it is set to.
func loadSessions() int {
	v := os.Getenv("DPSCOPE_SERVE_LOAD")
	if v == "" {
		return 3
	}
	if n, err := strconv.Atoi(v); err == nil && n > 1 {
		return n
	}
	return 20
}

// recorder is what the sessions' interfaces saw, server side.
type recorder struct {
	mu       sync.Mutex
	sizes    map[string][]tea.WindowSizeMsg // by session folder
	profiles map[string]bool                // sessions that got a colour profile
	runs     map[string]*core.Run
	refused  []error
	started  chan string
	// cheap turns each run into dppca at ε = 4 (the test); the benchmark
	// keeps the interface's own run, so that keys are timed while runs go.
	cheap bool
}

func newRecorder(n int) *recorder {
	return &recorder{sizes: map[string][]tea.WindowSizeMsg{}, profiles: map[string]bool{}, runs: map[string]*core.Run{}, started: make(chan string, n)}
}

// recModel forwards to the interface and notes sizes and profiles.
type recModel struct {
	tea.Model
	id  string
	rec *recorder
}

func (m recModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.rec.mu.Lock()
		m.rec.sizes[m.id] = append(m.rec.sizes[m.id], msg)
		m.rec.mu.Unlock()
	case tea.ColorProfileMsg:
		m.rec.mu.Lock()
		m.rec.profiles[m.id] = true
		m.rec.mu.Unlock()
	}
	next, cmd := m.Model.Update(msg)
	m.Model = next
	return m, cmd
}

// ui is the real interface on the built-in default set, running dppca
// (the only method this test binary registers), recording into rec.
func (rec *recorder) ui() UI {
	summary := datasets.Summary{Name: "default", Source: "builtin:default", Cells: 2000, Genes: 2000, KeptCells: 2000, SelectedGenes: 2000,
		Classes: []datasets.ClassCount{{Name: "type_1", Cells: 500}, {Name: "type_2", Cells: 1500}}}
	return UI{
		NewModel: func(s Session) tea.Model {
			start := func(ctx context.Context, cfg core.Config) (*core.Run, error) {
				rec.started <- s.StateDir // asked; it may wait for a worker
				// The cheap form of the run the interface asked for: its
				// first entry is dppca without noise, ten times slower
				// than at ε = 4 (≈0.3 s here), 95 s under -race.
				if rec.cheap {
					cfg.Mode, cfg.Epsilon, cfg.Delta = core.ModeSound, 4, 1e-5
				}
				run, err := s.Start(ctx, cfg)
				rec.mu.Lock()
				if err != nil {
					rec.refused = append(rec.refused, err)
				} else {
					rec.runs[s.StateDir] = run
				}
				rec.mu.Unlock()
				if os.Getenv("DPSCOPE_SERVE_KEYS") != "" {
					fmt.Printf("run %s %v ε=%v\n", cfg.Method, cfg.Mode, cfg.Epsilon)
				}
				return run, err
			}
			m := tui.New(tui.Config{Summary: summary, Backend: "test", Context: s.Context, NoReferences: true,
				DataRoot: s.DataRoot, StateDir: s.StateDir, ExportDir: s.StateDir, Start: start})
			return recModel{Model: m, id: s.StateDir, rec: rec}
		},
		StatusMsg: func(text string) tea.Msg { return tui.StatusMsg{Text: text} },
	}
}

// loadResult is what drive measured.
type loadResult struct {
	latencies   []time.Duration // all keys
	idle        []time.Duration // keys before the runs
	busy        []time.Duration // keys while the runs go
	heapPerSess float64         // bytes of heap in use per open session
}

func (r loadResult) p95() time.Duration { return p95(r.latencies) }

func p95(l []time.Duration) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[(len(s)*95+99)/100-1]
}

// drive opens n interactive sessions at once (100×30, then resized to
// 120×40), types keys in each, starts one run in each and waits for all
// runs to end, then quits every session.
func drive(tb testing.TB, h *harness, rec *recorder, n int) loadResult {
	tb.Helper()
	var res loadResult
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	terms := make([]*terminal, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := h.dial(gossh.Password(testPassphrase))
			if err != nil {
				errs <- fmt.Errorf("session %d: login: %w", i, err)
				return
			}
			tb.Cleanup(func() { c.Close() })
			t, err := openTerminal(c, 100, 30)
			if err != nil {
				errs <- fmt.Errorf("session %d: %w", i, err)
				return
			}
			if !t.waitOutput(30 * time.Second) {
				errs <- fmt.Errorf("session %d: no screen", i)
				return
			}
			terms[i] = t
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	runtime.GC()
	var open runtime.MemStats
	runtime.ReadMemStats(&open)
	res.heapPerSess = (float64(open.HeapInuse) - float64(before.HeapInuse)) / float64(n)

	var mu sync.Mutex
	for i, t := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := t.sess.WindowChange(40, 120); err != nil {
				tb.Errorf("session %d: window change: %v", i, err)
			}
			// Screens switch: every key redraws (a key undone by the next,
			// like ? ?, may be folded into one frame that changes nothing).
			for _, k := range []string{"2", "3", "4", "5", "1"} {
				d, err := t.keyToFrame(k)
				if err != nil {
					tb.Errorf("session %d key %q: %v", i, k, err)
					return
				}
				mu.Lock()
				res.latencies = append(res.latencies, d)
				res.idle = append(res.idle, d)
				if os.Getenv("DPSCOPE_SERVE_KEYS") != "" {
					fmt.Printf("key %s %v\n", k, d)
				}
				mu.Unlock()
			}
			if _, err := t.stdin.Write([]byte("s")); err != nil {
				tb.Errorf("session %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	for range n {
		select {
		case <-rec.started:
		case <-time.After(5 * time.Minute):
			tb.Fatalf("not every session asked for a run")
		}
	}
	// Keys while the runs go: the latency under load.
	for i, t := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range []string{"2", "1"} {
				d, err := t.keyToFrame(k)
				if err != nil {
					tb.Errorf("session %d key %q during the run: %v", i, k, err)
					return
				}
				mu.Lock()
				res.latencies = append(res.latencies, d)
				res.busy = append(res.busy, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rec.mu.Lock()
	runs := make([]*core.Run, 0, len(rec.runs))
	for _, r := range rec.runs {
		runs = append(runs, r)
	}
	refused := slices.Clone(rec.refused)
	rec.mu.Unlock()
	if len(refused) > 0 {
		tb.Fatalf("%d runs refused, first: %v", len(refused), refused[0])
	}
	// Runs wait for a worker: wait for all to start, then to end.
	for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		rec.mu.Lock()
		started, refused := len(rec.runs), len(rec.refused)
		runs = runs[:0]
		for _, r := range rec.runs {
			runs = append(runs, r)
		}
		rec.mu.Unlock()
		if refused > 0 {
			tb.Fatalf("%d runs refused", refused)
		}
		if started == n {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d runs started for %d sessions", started, n)
		}
	}
	for _, r := range runs {
		select {
		case <-r.Done():
		case <-time.After(10 * time.Minute):
			tb.Fatal("a run did not end")
		}
	}
	for _, t := range terms {
		_, _ = t.stdin.Write([]byte("q"))
	}
	for i, t := range terms {
		select {
		case <-t.ended:
			continue
		case <-time.After(5 * time.Second):
		}
		// The interface may not have drawn its run's end yet and asks
		// whether to stop it: yes.
		_, _ = t.stdin.Write([]byte("y"))
		select {
		case <-t.ended:
		case <-time.After(time.Minute):
			tb.Fatalf("session %d did not end after q and y", i)
		}
	}
	return res
}

// TestSessionsLoad drives concurrent interactive sessions: each gets its
// own interface at its own size, follows its resize, starts a run through
// the shared queue; every run ends and none is refused. The key → frame
// p95 is logged, not asserted (a figure of this machine).
func TestSessionsLoad(t *testing.T) {
	n := loadSessions()
	rec := newRecorder(n)
	rec.cheap = true
	h := startHarness(t, func(c *Config) { c.UI = rec.ui(); c.MaxRuns = 1; c.Workers = 2 })
	res := drive(t, h, rec, n)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sizes) != n {
		t.Fatalf("%d interfaces saw a size, want %d", len(rec.sizes), n)
	}
	dirs := map[string]bool{}
	for id, sizes := range rec.sizes {
		dirs[id] = true
		if first := sizes[0]; first.Width != 100 || first.Height != 30 {
			t.Errorf("%s: first size %dx%d, want the PTY's 100x30", id, first.Width, first.Height)
		}
		if !slices.Contains(sizes, tea.WindowSizeMsg{Width: 120, Height: 40}) {
			t.Errorf("%s: sizes %v, the resize to 120x40 never arrived", id, sizes)
		}
		if !rec.profiles[id] {
			t.Errorf("%s: no colour profile", id)
		}
		if info, err := os.Stat(id); err != nil || info.Mode().Perm() != 0o700 {
			t.Errorf("%s: session folder %v, %v; want one with mode 0700", id, info, err)
		}
	}
	if len(dirs) != n {
		t.Errorf("%d session folders for %d passphrase sessions, want one each", len(dirs), n)
	}
	t.Logf("%d sessions: key→frame p95 %v over %d keys (%v before the runs, %v while they go); heap %.0f KiB per open session",
		n, res.p95(), len(res.latencies), p95(res.idle), p95(res.busy), res.heapPerSess/1024)
}

// BenchmarkSessions reports, at 20 and 40 concurrent sessions each starting
// a run, the heap per open session and the p95 key → frame time. Run it
// with -benchtime=1x: one iteration is a whole workshop.
func BenchmarkSessions(b *testing.B) {
	for _, n := range []int{20, 40} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			var res loadResult
			for b.Loop() {
				rec := newRecorder(n)
				h := startHarness(b, func(c *Config) { c.UI = rec.ui(); c.MaxRuns = 1 })
				res = drive(b, h, rec, n)
				h.stop(b)
			}
			b.ReportMetric(float64(n), "sessions")
			b.ReportMetric(res.heapPerSess/1024, "KiB/session")
			b.ReportMetric(float64(res.p95().Microseconds())/1000, "p95-key→frame-ms")
			b.ReportMetric(float64(p95(res.busy).Microseconds())/1000, "p95-during-runs-ms")
		})
	}
}

// BenchmarkSessionsBare is BenchmarkSessions with a one-line interface and
// no runs: what the SSH server and Bubble Tea cost per session, apart from
// dpscope's panes. Each session types 10 keys, each redrawing the line.
func BenchmarkSessionsBare(b *testing.B) {
	for _, n := range []int{20, 40} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			var lat []time.Duration
			var heap float64
			for b.Loop() {
				h := startHarness(b, func(c *Config) { c.UI = stubUI() })
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				terms := make([]*terminal, n)
				for i := range terms {
					c, err := h.dial(gossh.Password(testPassphrase))
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { c.Close() })
					if terms[i], err = openTerminal(c, 100, 30); err != nil {
						b.Fatal(err)
					}
					terms[i].waitOutput(10 * time.Second)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap = (float64(after.HeapInuse) - float64(before.HeapInuse)) / float64(n)
				var mu sync.Mutex
				var wg sync.WaitGroup
				lat = lat[:0]
				for _, t := range terms {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for _, k := range "abcdefghij" {
							d, err := t.keyToFrame(string(k))
							if err != nil {
								b.Error(err)
								return
							}
							mu.Lock()
							lat = append(lat, d)
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
				h.stop(b)
			}
			b.ReportMetric(float64(n), "sessions")
			b.ReportMetric(heap/1024, "KiB/session")
			b.ReportMetric(float64(p95(lat).Microseconds())/1000, "p95-key→frame-ms")
		})
	}
}
