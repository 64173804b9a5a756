// Command dpscope explores the privacy–utility trade-off of differentially
// private learning on single-cell RNA-seq data, live, in the terminal.
//
// Run it with no arguments for the interactive screen on the embedded default
// data set; `dpscope --help` lists the subcommands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core/compute"
	_ "github.com/dpscope/dpscope/core/method/dcan"      // registers the DP-DCAN family as method "dcan"
	_ "github.com/dpscope/dpscope/core/method/dpmd"      // registers dpmd
	_ "github.com/dpscope/dpscope/core/method/dppca"     // registers dppca
	_ "github.com/dpscope/dpscope/core/method/fed"       // registers fl, fl-dp, ppml-omics and fedsc
	_ "github.com/dpscope/dpscope/core/method/sounddcan" // registers dcan-sound
	"github.com/dpscope/dpscope/core/safe"
	"github.com/dpscope/dpscope/internal/cli"
	"github.com/dpscope/dpscope/internal/serve"
	"github.com/dpscope/dpscope/tui"
)

func main() {
	// Before any goroutine: gonum's float64 products (PCA, SVD) follow
	// DPSCOPE_BLAS like the float32 ones.
	compute.UseOpenBLAS64()
	// A run holds its data (two dense cells × genes float32 matrices) for
	// its whole length and makes large short-lived allocations at every
	// evaluation (the PLD composition's FFTs, silhouette distance blocks).
	// At Go's default GOGC of 100 the heap may grow to twice the live data
	// before a collection: a 50,000-cell run peaked at 1.8 GB resident, at
	// 50 it peaks at 1.4 GB with the same results (docs/PERFORMANCE.md).
	// Training allocates nothing per step, so the extra collections cost
	// little. GOGC in the environment still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	// SIGINT (Ctrl-C) and SIGTERM (kill, systemd, CI) stop every command;
	// cli.Execute gives up on one that cannot stop within a second.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// Asking for SIGPIPE turns a write to a closed pipe (`| head`) into an
	// EPIPE error instead of killing the process at once, so that a run
	// stops cleanly, commits its --out folder as stopped and exits 141.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	code := cli.Execute(ctx, os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, LaunchTUI: launchTUI, ServeUI: serveUI})
	stop()
	os.Exit(code)
}

// launchTUI runs the Bubble Tea program until the user quits. Logs go to the
// file named by DPSCOPE_LOG, never to the screen. Whatever ends it (a quit,
// an error, a panic Bubble Tea caught or one it did not), the terminal is
// left as it was found: raw mode off, main screen, cursor shown.
func launchTUI(ctx context.Context, data *cli.Loaded) (err error) {
	restore := guardTerminal(os.Stdin, os.Stdout)
	err = safe.Call(func() error { return runTUI(ctx, data) })
	if err != nil {
		restore()
	}
	return err
}

// runTUI builds and runs the program.
func runTUI(ctx context.Context, data *cli.Loaded) error {
	if path := os.Getenv("DPSCOPE_LOG"); path != "" {
		f, err := tea.LogToFile(path, "dpscope")
		if err != nil {
			return fmt.Errorf("log file %s: %w", path, err)
		}
		defer f.Close()
	}
	backend, err := compute.Init()
	if err != nil {
		return err
	}
	m := tui.New(tui.Config{
		Summary:     data.Summary(),
		Backend:     fmt.Sprintf("%s, %d threads", backend.Name, backend.Threads),
		BackendHint: backend.Hint(),
		Context:     ctx,
		Data:        data.Config.Data,
		// The flags that shaped the loaded matrix shape every run's.
		Labels: data.Config.Labels, Orientation: data.Config.Orientation, Preprocess: data.Config.Preprocess,
		LabelsColumn: data.Config.LabelsColumn, UseRaw: data.Config.UseRaw,
		// Sessions autosave to the user data dir (StateDir empty) and are
		// stamped with the version.
		SessionFile: data.Session, Version: cli.BuildVersion(),
	})
	_, err = tea.NewProgram(m, tea.WithContext(ctx)).Run()
	return err
}

// serveUI gives each SSH session of `dpscope serve` its own interface on
// data, confined to the session's folders and starting runs through the
// server's queue.
func serveUI(data *cli.Loaded) serve.UI {
	backend := "gonum"
	if b, err := compute.Init(); err == nil {
		backend = fmt.Sprintf("%s, %d threads", b.Name, b.Threads)
	}
	summary := data.Summary()
	return serve.UI{
		NewModel: func(s serve.Session) tea.Model {
			return tui.New(tui.Config{
				Summary: summary, Backend: backend, Context: s.Context,
				Data:   data.Config.Data,
				Labels: data.Config.Labels, Orientation: data.Config.Orientation, Preprocess: data.Config.Preprocess,
				LabelsColumn: data.Config.LabelsColumn, UseRaw: data.Config.UseRaw,
				DataRoot: s.DataRoot, StateDir: s.StateDir, ExportDir: s.StateDir,
				Start: s.Start, Admit: s.Admit, Version: cli.BuildVersion(), Class: s.Class,
			})
		},
		StatusMsg: func(text string) tea.Msg { return tui.StatusMsg{Text: text} },
	}
}
