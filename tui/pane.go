package tui

import (
	"context"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/class"
	"github.com/dpscope/dpscope/tui/keys"
	"github.com/dpscope/dpscope/tui/styles"
)

// Pane is one screen of the interface. Panes are pointers owned by the root
// model; Update mutates the pane and returns it with a command.
type Pane interface {
	// Title is the tab label.
	Title() string
	// Init returns the pane's first command, if any.
	Init() tea.Cmd
	// Update handles one message.
	Update(msg tea.Msg) (Pane, tea.Cmd)
	// View renders the pane within its size. It must be cheap: charts are
	// drawn in Frame, not here.
	View() string
	// SetSize sets the inner size the pane may draw in.
	SetSize(w, h int)
	// Capturing reports whether the pane is taking text input, so that
	// global keys (q, 1–5, tab) go to it instead.
	Capturing() bool
	// Frame redraws what changed since the last frame (charts).
	Frame()
	help.KeyMap
}

// RunState is where the session's run is in its life.
type RunState int

// The run states.
const (
	RunIdle     RunState = iota // no run yet
	RunStarting                 // core.Start is being called
	RunRunning
	RunPaused
	RunFinished // the last run ended (done, stopped or failed)
)

// String returns the state's label.
func (s RunState) String() string {
	return [...]string{"idle", "starting", "running", "paused", "finished"}[s]
}

// Active reports whether a run is going (starting, running or paused).
func (s RunState) Active() bool { return s == RunStarting || s == RunRunning || s == RunPaused }

// Common is the read-mostly state every pane shares: the configuration,
// the theme, the keys and where the run is. Only the root model writes it,
// in Update; commands never read it.
type Common struct {
	Config   Config
	Styles   styles.Styles
	Keys     keys.KeyMap
	RunState RunState
	// RunID counts started runs; 0 before the first.
	RunID int
}

// Config is what the interface needs from main.
type Config struct {
	// Summary describes the data set loaded at start. Required.
	Summary datasets.Summary
	// Backend names the BLAS backend in use, e.g. "openblas, 2 threads".
	Backend string
	// BackendHint, when set, says once in the status line how much faster
	// a missing OpenBLAS would make runs and how to get it.
	BackendHint string
	// NoReferences skips the reference lines a run's metrics chart draws
	// (B1 and the method's null, computed in the background at a run's
	// start): for tests that time a real engine's run.
	NoReferences bool
	// Method, when set, is the registered engine every run starts with,
	// whatever the method control says (tests and demos use a fake engine).
	// Empty: each method runs on its own registered engine.
	Method string
	// Data is the data set runs use ("builtin:NAME" or a path). Defaults to
	// Summary.Source when empty.
	Data string
	// Labels, Orientation and Preprocess say how every run reads and
	// preprocesses Data (core.Config's fields of the same names, from the
	// command line's flags). Zero: the defaults.
	Labels       string
	LabelsColumn string // the obs column of an .h5ad that holds the labels
	UseRaw       bool   // read an .h5ad's raw.X
	Orientation  string
	Preprocess   *datasets.PreprocessConfig
	// DataRoot, when set, is the folder the data picker (d) starts in and
	// never leaves: every path it browses, peeks or loads must lie in it
	// once symlinks are resolved (filepath.EvalSymlinks). Empty: the picker
	// starts in the working directory and may go anywhere.
	DataRoot string
	// ExportDir is the folder Compare writes its CSV and JSON files to.
	// Empty: StateDir when the caller set one (a served session's folder),
	// else the working directory.
	ExportDir string
	// StateDir is the folder a session autosaves and exports to: its
	// autosaves go to StateDir/sessions/. Empty: the user data dir,
	// $XDG_DATA_HOME/dpscope, else os.UserConfigDir()/dpscope.
	StateDir string
	// SessionFile is the file the session was reopened from and saves to
	// (ctrl+s). A file that does not exist yet is created at the first
	// save; one that cannot be read is left untouched and the session
	// saves elsewhere. Empty: the first save names a new file.
	SessionFile string
	// Version is dpscope's version, stamped on saved sessions.
	Version string
	// Context bounds every run; runs also stop when the user quits.
	// Defaults to context.Background() when nil.
	Context context.Context
	// Seed is the first run's seed. Zero means core.DefaultSeed.
	Seed uint64
	// Epochs presets the Run pane's epochs per stage (σ is solved for
	// them). Zero keeps core.DefaultEpochs, as `dpscope run` does.
	Epochs [2]int
	// Start, when set, replaces core.Start for every run the interface
	// starts: `dpscope serve` passes its server-wide run queue, which may
	// block until a worker is free or refuse a run (the error is shown).
	Start func(ctx context.Context, cfg core.Config) (*core.Run, error)
	// Admit, when set, waits for a worker before work that is not a run
	// (computing a B1 reference line that is not cached yet): `dpscope
	// serve` passes a place in the same queue as Start's. Nil: no wait.
	Admit func(ctx context.Context) (release func(), err error)
	// Class, when set, is the session's seat in a workshop's class
	// (`dpscope serve`): a Class tab reports its finished runs, names the
	// participant and offers the instructor's pushes; on an instructor's
	// seat it is the class board, and the session opens on it.
	Class *class.Seat
}

// withDefaults fills the documented defaults.
func (c Config) withDefaults() Config {
	if c.Data == "" {
		c.Data = c.Summary.Source
	}
	if c.Data == "" {
		c.Data = "builtin:default"
	}
	if c.ExportDir == "" {
		c.ExportDir = c.StateDir
	}
	if c.ExportDir == "" {
		c.ExportDir = "."
	}
	if c.StateDir == "" {
		c.StateDir = userStateDir()
	}
	if c.Version == "" {
		c.Version = "devel"
	}
	if c.Context == nil {
		c.Context = context.Background()
	}
	if c.Start == nil {
		c.Start = core.Start
	}
	if c.Seed == 0 {
		c.Seed = core.DefaultSeed
	}
	if c.Epochs == [2]int{} {
		c.Epochs = core.DefaultEpochs
	}
	return c
}

// runConfig is the engine configuration of pr with the session's data
// settings: the flags that shaped the loaded matrix reach every run, except
// a synthetic manifold's, which reads no data set.
func (c Config) runConfig(pr runParams) core.Config {
	cfg := pr.Config(c.Method)
	if cfg.Data == c.Data {
		cfg.Labels, cfg.Orientation, cfg.Preprocess = c.Labels, c.Orientation, c.Preprocess
		cfg.LabelsColumn, cfg.UseRaw = c.LabelsColumn, c.UseRaw
	}
	return cfg
}
