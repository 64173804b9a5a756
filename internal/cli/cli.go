// Package cli is dpscope's command line: the subcommands, their flags, and
// the exit codes (0 success, 1 runtime error, 2 usage error, 130 interrupted
// while a command could not stop by itself, 141 output pipe closed).
//
// It knows nothing of terminals: main.go passes in the function that starts
// the TUI, so main stays the only importer of tui; of its subpackages it
// reads tui/session, the session file's format, to find a session's data.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/serve"
)

// Exit codes returned by Execute.
const (
	ExitOK      = 0
	ExitRuntime = 1
	ExitUsage   = 2
	// ExitInterrupted is returned when a signal ended a command that did
	// not finish within stopGrace (a load, a computation, a blocked open):
	// 128 + SIGINT, as shells report it.
	ExitInterrupted = 130
	// ExitBrokenPipe is returned when standard output was closed by its
	// reader (`| head`): 128 + SIGPIPE, as shells report it.
	ExitBrokenPipe = 141
)

// stopGrace is how long Execute waits, after its context is cancelled, for
// the command to end by itself before abandoning it. Commands that watch the
// context (run) end well within it; the others (loading, the accountants)
// cannot be interrupted and are abandoned, so that a signal always ends the
// process within a second.
const stopGrace = 900 * time.Millisecond

// Env is what the commands need from the outside world.
type Env struct {
	Stdout, Stderr io.Writer
	// LaunchTUI starts the interactive screen on a loaded data set and
	// returns when the user quits.
	LaunchTUI func(ctx context.Context, data *Loaded) error
	// ServeUI builds the interfaces `dpscope serve` gives its sessions,
	// each opening on data.
	ServeUI func(data *Loaded) serve.UI

	remote *serve.ExecRequest // set for a remote command of `dpscope serve`

	temps *tempDirs // unfinished --out folders, set by Execute
}

// usageError marks an error as the user's misuse of the command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// Execute runs the command line args (without the program name) and returns
// the process exit code. Errors are printed to env.Stderr. A failed write to
// env.Stdout is an error too (exit 1, or 141 for a closed pipe): output that
// did not arrive is never a success. When ctx is cancelled (a signal) and the
// command does not end within stopGrace, Execute removes the temporary
// folders of unfinished --out runs and returns ExitInterrupted; the command's
// goroutine is left behind, for the process to exit.
func Execute(ctx context.Context, args []string, env Env) int {
	out := &guardedWriter{w: env.Stdout}
	errOut := &guardedWriter{w: env.Stderr}
	env.Stdout, env.Stderr = out, errOut
	env.temps = newTempDirs()
	done := make(chan int, 1)
	go func() { done <- execute(ctx, args, env, out) }()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	select {
	case code := <-done:
		return code
	case <-time.After(stopGrace):
	}
	// The command is stuck in something that cannot be interrupted. Nothing
	// it writes from now on reaches the caller.
	out.close()
	errOut.close()
	env.temps.abandon()
	fmt.Fprintf(errOut.w, "dpscope: %s: interrupted (%v)\n", commandName(args), context.Cause(ctx))
	return ExitInterrupted
}

// commandName names the command of args for a message.
func commandName(args []string) string {
	name := "dpscope"
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		name += " " + a
	}
	return name
}

// execute is Execute without the interrupt watchdog.
func execute(ctx context.Context, args []string, env Env, out *guardedWriter) int {
	root := newRootCmd(env)
	root.SetArgs(args)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	cmd, err := root.ExecuteContextC(ctx)
	// The usage hint names the command that refused its input (`dpscope
	// sweep --help`), whose help lists the flags in question.
	hint := "Run 'dpscope --help' for usage."
	if cmd != nil {
		hint = fmt.Sprintf("Run '%s --help' for usage.", cmd.CommandPath())
	}
	if werr := out.failed(); werr != nil && (err == nil || !strings.Contains(err.Error(), "standard output")) {
		// The output that failed is what the user is missing: say so,
		// whatever error the command met by writing on regardless.
		err = runtimeError{outputError(werr)}
	}
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(env.Stderr, "dpscope:", err)
	var ue usageError
	var re runtimeError
	switch {
	case errors.Is(err, syscall.EPIPE):
		return ExitBrokenPipe
	case errors.As(err, &ue):
		fmt.Fprintln(env.Stderr, hint)
		return ExitUsage
	case errors.As(err, &re):
		return ExitRuntime
	default:
		// Cobra's own errors (unknown command, bad flag, wrong argument
		// count) come back unwrapped: they are usage errors.
		fmt.Fprintln(env.Stderr, hint)
		return ExitUsage
	}
}

// outputError says that standard output failed.
func outputError(err error) error { return fmt.Errorf("writing to standard output: %w", err) }

// guardedWriter remembers the first write error of w, after which every
// write fails with it, so that a command can check once, at the end or
// between steps, whether its output arrived. After close, writes fail
// without reaching w. Safe for concurrent use.
type guardedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	err    error
	closed bool
}

func (g *guardedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return 0, errOutputClosed
	}
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	g.err = err
	return n, err
}

// failed returns the first write error, or nil.
func (g *guardedWriter) failed() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

func (g *guardedWriter) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// errOutputClosed is what writes of an abandoned command get.
var errOutputClosed = errors.New("output closed after an interrupt")

// outputFailed returns the first write error of w when w is a guarded
// writer, else nil.
func outputFailed(w io.Writer) error {
	if g, ok := w.(*guardedWriter); ok {
		return g.failed()
	}
	return nil
}

// runtimeError marks an error that happened while doing the work, after the
// command line was understood.
type runtimeError struct{ err error }

func (e runtimeError) Error() string { return e.err.Error() }
func (e runtimeError) Unwrap() error { return e.err }

// runE adapts a command body so that its errors count as runtime errors
// unless they are already usage errors.
func runE(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := f(cmd, args)
		var ue usageError
		if err == nil || errors.As(err, &ue) {
			return err
		}
		return runtimeError{err}
	}
}

func newRootCmd(env Env) *cobra.Command {
	if env.remote != nil {
		return newRemoteRootCmd(env)
	}
	var lf loadFlags
	var sessionFile string
	root := &cobra.Command{
		Use:   "dpscope",
		Short: "Explore the privacy–utility trade-off of differentially private learning on scRNA-seq data",
		Long: `dpscope trains and denoises single-cell RNA-seq data with differentially
private methods while you watch, live, what ε, δ, σ and the clipping bound do
to the loss, the privacy budget spent and the clustering quality.

With no subcommand it starts the terminal interface on the embedded default
data set (or the one named by --data). --session FILE reopens a saved
session (its runs, charts and privacy tally, on its data set) or starts one
that ctrl+s saves to FILE; every session is also autosaved to the user data
dir ($XDG_DATA_HOME/dpscope/sessions).`,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			load := lf.load
			if sessionFile != "" {
				load = func(cmd *cobra.Command) (*Loaded, error) { return lf.loadSession(cmd, sessionFile) }
			}
			data, err := load(cmd)
			if err != nil {
				return err
			}
			for _, w := range data.Data.Warnings {
				fmt.Fprintln(env.Stderr, "dpscope: warning:", w)
			}
			return env.LaunchTUI(cmd.Context(), data)
		}),
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError{optHint(cmd, flagValueError(err))} })
	lf.register(root, "builtin:default")
	root.Flags().StringVar(&sessionFile, "session", "", "reopen the session saved in FILE (or start one that saves there)")
	root.AddCommand(newVersionCmd(env), newDataCmd(env), newBudgetCmd(env), newRunCmd(env), newSweepCmd(env), newMethodsCmd(env), newPlotCmd(env), newReportCmd(env), newAuditCmd(env), newServeCmd(env))
	return root
}

// flagValueError says what is wrong with a flag's value in the user's
// terms, naming the flag and the value as typed: pflag's "invalid argument
// "abc" for "--epsilon" flag: strconv.ParseFloat: parsing "abc": invalid
// syntax" becomes "--epsilon abc: not a number". Other errors pass as they
// are.
func flagValueError(err error) error {
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return err
	}
	f, cause := bad.GetFlag(), bad.Unwrap()
	what := cause.Error()
	var num *strconv.NumError
	if errors.As(cause, &num) {
		switch {
		case errors.Is(num.Err, strconv.ErrRange):
			what = "out of range"
		case strings.HasPrefix(f.Value.Type(), "float"):
			what = "not a number"
		case strings.HasPrefix(f.Value.Type(), "uint"):
			what = "not a whole number ≥ 0"
		case strings.HasPrefix(f.Value.Type(), "int"):
			what = "not a whole number"
		case f.Value.Type() == "bool":
			what = "not true or false"
		}
	}
	return fmt.Errorf("--%s %s: %s", f.Name, bad.GetValue(), what)
}

// optHint adds to an unknown flag that is a method option's key (--k,
// --steps: what a user tries first) how to set it: --opt KEY=VALUE, on
// the commands that take --opt.
func optHint(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok || cmd.Flags().Lookup("opt") == nil {
		return err
	}
	name, _, _ = strings.Cut(name, "=")
	var takes []string
	for _, m := range core.Methods() {
		if _, ok := m.Option(name); ok {
			takes = append(takes, m.Name)
		}
	}
	if len(takes) == 0 {
		return err
	}
	return fmt.Errorf("%w: %s is an option of %s; set it with --opt %s=VALUE", err, name, strings.Join(takes, ", "), name)
}
