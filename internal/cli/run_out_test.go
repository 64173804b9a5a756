package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
)

// Regression tests for issue 14 points 11–13: nothing lost.

// failing is an engine that fails after some steps (0: before the first).
type failing struct{ after int }

func (f failing) Run(ctx context.Context, ctl *core.Control) error {
	ctl.Emit(core.StageEvent{Stage: 1, Name: "only", Steps: 10})
	for step := 1; step <= f.after; step++ {
		if _, err := ctl.Checkpoint(ctx); err != nil {
			return err
		}
		ctl.Emit(core.StepEvent{Stage: 1, Epoch: 1, Step: step, Loss: 1})
	}
	return errors.New("the engine broke")
}

// stuck ignores Stop for a long time, as an engine loading a big file does.
type stuck struct{}

func (stuck) Run(ctx context.Context, _ *core.Control) error {
	time.Sleep(time.Minute)
	return nil
}

// clustersOnly reports its clusters as an EmbeddingEvent and no result, as
// dcan does.
type clustersOnly struct{}

func (clustersOnly) Run(ctx context.Context, ctl *core.Control) error {
	ctl.Emit(core.StepEvent{Stage: 1, Epoch: 1, Step: 1, Loss: 1})
	ctl.Emit(core.EmbeddingEvent{Step: 1, X: []float64{0.5, -1}, Y: []float64{2, 3}, Cluster: []int{1, 0}, Truth: []int{-1, -1}})
	return nil
}

func init() {
	core.Register(core.Method{Name: "test-fail-early", Family: core.FamilyDPSGD, New: func(core.Config) (core.Engine, error) { return failing{0}, nil }})
	core.Register(core.Method{Name: "test-fail-late", Family: core.FamilyDPSGD, New: func(core.Config) (core.Engine, error) { return failing{3}, nil }})
	core.Register(core.Method{Name: "test-stuck", Family: core.FamilyDPSGD, New: func(core.Config) (core.Engine, error) { return stuck{}, nil }})
	core.Register(core.Method{Name: "test-clusters", Family: core.FamilyDPSGD, New: func(core.Config) (core.Engine, error) { return clustersOnly{}, nil }})
}

// snapshot returns every file of dir with its content and mode, to check
// that a folder is left byte-identical.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			out[p] = "error: " + err.Error()
			return nil
		}
		info, _ := d.Info()
		if d.IsDir() {
			out[p] = "dir " + info.Mode().String()
			return nil
		}
		b, _ := os.ReadFile(p)
		out[p] = info.Mode().String() + " " + string(b)
		return nil
	})
	return out
}

// goodResults makes a result folder of a finished scripted run.
func goodResults(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "results")
	if code, _, stderr := run(t, "run", "--method", "test-scripted", "--out", dir); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return dir
}

// noTemporaries fails when dir's parent holds anything but dir.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if e.Name() != filepath.Base(dir) {
			t.Errorf("left behind %s beside %s", e.Name(), dir)
		}
	}
}

func TestOutRefusesResultsWithoutForce(t *testing.T) {
	dir := goodResults(t)
	before := snapshot(t, dir)
	code, _, stderr := run(t, "run", "--method", "test-scripted", "--seed", "5", "--out", dir)
	if code != ExitUsage || !strings.Contains(stderr, dir) || !strings.Contains(stderr, "--force") {
		t.Errorf("--out on earlier results: exit %d, %q; want 2 naming the folder and --force", code, stderr)
	}
	if after := snapshot(t, dir); !equalMaps(before, after) {
		t.Errorf("refused run changed the folder")
	}
	code, _, stderr = run(t, "run", "--method", "test-scripted", "--seed", "5", "--out", dir, "--force")
	if code != ExitOK {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if s := readSummary(t, dir); s["steps"] != 15.0 {
		t.Errorf("--force left steps %v, want the new run's 15", s["steps"])
	}
	noTemporaries(t, dir)
}

func TestOutRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("years of work"), 0o644)
	before := snapshot(t, dir)
	code, _, stderr := run(t, "run", "--method", "test-scripted", "--out", dir, "--force")
	if code != ExitUsage || !strings.Contains(stderr, "thesis.tex") {
		t.Errorf("--out --force on a folder with other files: exit %d, %q; want 2 naming thesis.tex", code, stderr)
	}
	if !equalMaps(before, snapshot(t, dir)) {
		t.Error("the folder changed")
	}
}

func TestOutFailedRunsLeaveFolderAlone(t *testing.T) {
	for _, tc := range []struct {
		method  string
		written bool // committed, with the error in summary.json
	}{
		{"test-fail-early", false},
		{"test-fail-late", true},
	} {
		dir := goodResults(t)
		before := snapshot(t, dir)
		code, _, stderr := run(t, "run", "--method", tc.method, "--out", dir, "--force")
		if code != ExitRuntime || !strings.Contains(stderr, "the engine broke") {
			t.Errorf("%s: exit %d, %q; want 1 and the engine's error", tc.method, code, stderr)
		}
		if tc.written {
			s := readSummary(t, dir)
			if s["error"] == nil || s["steps"] != 3.0 {
				t.Errorf("%s: summary error %v, steps %v; want the error and 3 steps", tc.method, s["error"], s["steps"])
			}
		} else if !equalMaps(before, snapshot(t, dir)) {
			t.Errorf("%s: a run that failed before its first step replaced the results", tc.method)
		}
		noTemporaries(t, dir)
	}
}

func TestOutFileModesAndClusters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := run(t, "run", "--method", "test-clusters", "--out", dir); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, _ := e.Info()
		if info.Mode().Perm()&0o444 != 0o444 {
			t.Errorf("%s has mode %v, want readable by all (0644)", e.Name(), info.Mode())
		}
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o755 {
		t.Errorf("folder mode %v, want 0755", st.Mode())
	}
	a, _ := os.ReadFile(filepath.Join(dir, "assignments.tsv"))
	e, _ := os.ReadFile(filepath.Join(dir, "embedding.tsv"))
	if string(a) != "barcode\tcluster\ncell_1\t1\ncell_2\t0\n" || string(e) != "barcode\tpc1\tpc2\ncell_1\t0.5\t2\ncell_2\t-1\t3\n" {
		t.Errorf("assignments.tsv %q, embedding.tsv %q", a, e)
	}
}

// failWriter fails every write with err.
type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// pipeAfter accepts n writes, then fails with EPIPE like a closed pipe.
type pipeAfter struct {
	n   int
	buf bytes.Buffer
}

func (p *pipeAfter) Write(b []byte) (int, error) {
	if p.n == 0 {
		return 0, syscall.EPIPE
	}
	p.n--
	return p.buf.Write(b)
}

func TestStdoutFull(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--method", "test-scripted"},
		{"run", "--method", "test-scripted", "--json"},
		{"data", "inspect", "builtin:default"},
		{"budget", "--q", "0.1", "--sigma", "2", "--steps", "100"},
		{"version"},
		{"--help"},
	} {
		var errOut bytes.Buffer
		code := Execute(context.Background(), args, Env{Stdout: failWriter{syscall.ENOSPC}, Stderr: &errOut})
		if code != ExitRuntime || !strings.Contains(errOut.String(), "no space left") || !strings.Contains(errOut.String(), "standard output") {
			t.Errorf("%q > /dev/full: exit %d, %q; want 1 and a message", args, code, errOut.String())
		}
	}
}

func TestStdoutBrokenPipe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	// head reads the guarantee, stage, first step and first budget lines:
	// the run has then taken a step, so its folder is committed (a run
	// stopped before its first step writes nothing, and where the pipe
	// breaks relative to the first step would otherwise depend on timing).
	out := &pipeAfter{n: 4}
	var errOut bytes.Buffer
	code := Execute(context.Background(), []string{"run", "--method", "test-slow", "--json", "--out", dir},
		Env{Stdout: out, Stderr: &errOut})
	if code != ExitBrokenPipe || strings.Contains(errOut.String(), "goroutine") {
		t.Errorf("run --json | head -1: exit %d, %q; want 141 without a stack trace", code, errOut.String())
	}
	s := readSummary(t, dir)
	if s["stopped"] != true || !strings.Contains(s["reason"].(string), "broken pipe") {
		t.Errorf("summary stopped %v, reason %v; want stopped by the broken pipe", s["stopped"], s["reason"])
	}
	if strings.Count(out.buf.String(), "\n") != 4 {
		t.Errorf("stdout got %q, want the four lines head read", out.buf.String())
	}
	noTemporaries(t, dir)
}

func TestSignalStopsRunAndMarksFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(100*time.Millisecond, func() { cancel(errors.New("terminated signal received")) })
	var out, errOut bytes.Buffer
	code := Execute(ctx, []string{"run", "--method", "test-slow", "--out", dir}, Env{Stdout: &out, Stderr: &errOut})
	if code != ExitRuntime || !strings.Contains(errOut.String(), "terminated") {
		t.Errorf("SIGTERM: exit %d, %q; want 1 naming the signal", code, errOut.String())
	}
	s := readSummary(t, dir)
	if s["stopped"] != true || !strings.Contains(s["reason"].(string), "terminated") {
		t.Errorf("summary stopped %v, reason %v", s["stopped"], s["reason"])
	}
	noTemporaries(t, dir)
}

func TestSignalAbandonsStuckRun(t *testing.T) {
	dir := goodResults(t)
	before := snapshot(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var out, errOut bytes.Buffer
	done := make(chan int)
	go func() {
		done <- Execute(ctx, []string{"run", "--method", "test-stuck", "--out", dir, "--force"}, Env{Stdout: &out, Stderr: &errOut})
	}()
	select {
	case code := <-done:
		if code != ExitRuntime || !strings.Contains(errOut.String(), "nothing written") {
			t.Errorf("stuck run interrupted: exit %d, %q", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("an interrupted run that does not stop hangs the command")
	}
	if !equalMaps(before, snapshot(t, dir)) {
		t.Error("an interrupted run with no step replaced the results")
	}
	noTemporaries(t, dir)
}

func TestSignalEndsBlockedCommands(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := makeFIFO(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, args := range [][]string{
		{"data", "inspect", fifo},
		{"run", "--config", fifo},
		{"--data", fifo},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		done := make(chan int)
		var errOut bytes.Buffer
		go func() {
			done <- Execute(ctx, args, Env{Stdout: io.Discard, Stderr: &errOut, LaunchTUI: func(context.Context, *Loaded) error { return nil }})
		}()
		select {
		case code := <-done:
			if code != ExitInterrupted || !strings.Contains(errOut.String(), "interrupted") {
				t.Errorf("%q on a FIFO without writer, interrupted: exit %d, %q; want 130", args, code, errOut.String())
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%q on a FIFO without writer hangs after the interrupt", args)
		}
	}
}

func TestConfigBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	code, _, stderr := run(t, "run", "--config", "/dev/zero")
	if code != ExitRuntime || !strings.Contains(stderr, "/dev/zero") || !strings.Contains(stderr, "larger than") {
		t.Errorf("--config /dev/zero: exit %d, %q", code, stderr)
	}
}

func TestSeedRange(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	for _, tc := range []struct {
		args []string
		want int
		msg  string
	}{
		{[]string{"--seed", "18446744073709551615"}, ExitUsage, "18446744073709551615"},
		{[]string{"--seed", "9223372036854775808"}, ExitUsage, "9223372036854775808"},
		{[]string{"--seed", "-1"}, ExitUsage, "-1"},
		{[]string{"--config", write("neg.toml", "seed = -1\n")}, ExitRuntime, "seed is -1"},
		{[]string{"--config", write("float.toml", "seed = 1.5\n")}, ExitRuntime, "seed is 1.5"},
		{[]string{"--config", write("str.toml", "seed = \"7\"\n")}, ExitRuntime, "seed is 7"},
		{[]string{"--config", write("big.toml", "seed = 18446744073709551615\n")}, ExitRuntime, "big.toml"},
	} {
		code, _, stderr := run(t, append([]string{"run", "--method", "test-scripted"}, tc.args...)...)
		if code != tc.want || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%q: exit %d, %q; want %d mentioning %q", tc.args, code, stderr, tc.want, tc.msg)
		}
	}
	// Seed 0 and 2⁶³−1 are valid, and the config written replays.
	for _, seed := range []string{"0", "9223372036854775807"} {
		out := filepath.Join(t.TempDir(), "o")
		code, _, stderr := run(t, "run", "--method", "test-fail-late", "--seed", seed, "--out", out)
		if code != ExitRuntime || strings.Contains(stderr, "seed") {
			t.Fatalf("--seed %s: exit %d, %q", seed, code, stderr)
		}
		var cfg core.Config
		if err := readConfigFile(filepath.Join(out, "config.toml"), &cfg); err != nil || formatSeed(cfg.Seed) != seed {
			t.Errorf("config.toml of --seed %s reads back as %d, %v", seed, cfg.Seed, err)
		}
	}
}

func formatSeed(s uint64) string { b, _ := json.Marshal(s); return string(b) }

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
