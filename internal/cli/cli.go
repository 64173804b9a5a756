// Package cli is dpscope's command line: the subcommands, their flags, and
// the exit codes (0 success, 1 runtime error, 2 usage error).
//
// It knows nothing of terminals: main.go passes in the function that starts
// the TUI, so main stays the only importer of tui.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes returned by Execute.
const (
	ExitOK      = 0
	ExitRuntime = 1
	ExitUsage   = 2
)

// Env is what the commands need from the outside world.
type Env struct {
	Stdout, Stderr io.Writer
	// LaunchTUI starts the interactive screen on a loaded data set and
	// returns when the user quits.
	LaunchTUI func(ctx context.Context, data *Loaded) error
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
// the process exit code. Errors are printed to env.Stderr.
func Execute(ctx context.Context, args []string, env Env) int {
	root := newRootCmd(env)
	root.SetArgs(args)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(env.Stderr, "dpscope:", err)
	var ue usageError
	var re runtimeError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(env.Stderr, "Run 'dpscope --help' for usage.")
		return ExitUsage
	case errors.As(err, &re):
		return ExitRuntime
	default:
		// Cobra's own errors (unknown command, bad flag, wrong argument
		// count) come back unwrapped: they are usage errors.
		fmt.Fprintln(env.Stderr, "Run 'dpscope --help' for usage.")
		return ExitUsage
	}
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
	var lf loadFlags
	root := &cobra.Command{
		Use:   "dpscope",
		Short: "Explore the privacy–utility trade-off of differentially private learning on scRNA-seq data",
		Long: `dpscope trains and denoises single-cell RNA-seq data with differentially
private methods while you watch, live, what ε, δ, σ and the clipping bound do
to the loss, the privacy budget spent and the clustering quality.

With no subcommand it starts the terminal interface on the embedded default
data set (or the one named by --data).`,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			data, err := lf.load(cmd)
			if err != nil {
				return err
			}
			return env.LaunchTUI(cmd.Context(), data)
		}),
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	lf.register(root, "builtin:default")
	root.AddCommand(newVersionCmd(env), newDataCmd(env), newBudgetCmd(env), newRunCmd(env))
	return root
}
