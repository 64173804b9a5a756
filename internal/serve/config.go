package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/class"
)

// Config is what a Server needs. Zero fields take the defaults documented
// on them; NewModel and one of AuthorizedKeys and PassphraseFile are
// required.
type Config struct {
	// Addr is the address to listen on; ":2222" when empty.
	Addr string
	// HostKeyPath is the host key file, created when missing;
	// DefaultHostKeyPath() when empty.
	HostKeyPath string
	// AuthorizedKeys is an OpenSSH authorized_keys file: its keys get in.
	AuthorizedKeys string
	// InstructorKeys is an OpenSSH authorized_keys file: its keys get in
	// and see the class board (every participant's runs, a leaderboard)
	// and may push a preset or a message to every session.
	InstructorKeys string
	// PassphraseFile holds the workshop passphrase on its first line:
	// whoever types it gets in.
	PassphraseFile string
	// DataDir is the only folder sessions may read data from (the
	// built-in sets are always open). Empty: the built-in sets only.
	DataDir string
	// StateDir holds one folder per session, the only place a session
	// writes to. Required. It also holds class.json, the class board
	// saved at the drain and read at the start.
	StateDir string
	// Version is dpscope's version, stamped on the saved class.
	Version string
	// Workers is how many runs go at once, server-wide; the number of
	// cores when zero.
	Workers int
	// MaxRuns is how many runs one session may have queued or running;
	// 2 when zero.
	MaxRuns int
	// MaxCells refuses runs on data sets with more cells, so that memory
	// per run stays bounded; 50,000 when zero.
	MaxCells int
	// IdleTimeout ends an interactive session that had no keystroke and
	// no run for this long; 30 minutes when zero.
	IdleTimeout time.Duration
	// Keep is how long the interface of a session that disconnected, its
	// runs and their results are kept for the session to find them again
	// (keep.go); 0 drops them with the connection.
	Keep time.Duration
	// FailDelay is how long a failed passphrase attempt waits before its
	// answer; 1 s when zero.
	FailDelay time.Duration
	// MaxFailures is how many failed passphrase attempts an address may
	// make within FailWindow before it is refused outright; 10 and 10
	// minutes when zero.
	MaxFailures int
	FailWindow  time.Duration
	// AllowSFTP serves each session's own folder read-only over SFTP
	// (`scp -P PORT HOST:file .`, `sftp`), for downloading exports.
	AllowSFTP bool
	// Logger receives the structured log; slog.Default() when nil.
	Logger *slog.Logger
	// UI builds the sessions' interfaces; its NewModel is required.
	UI
	// Exec runs a remote command (`ssh host -- budget …`) and returns its
	// exit status. Nil refuses every command.
	Exec func(ctx context.Context, req ExecRequest) int
}

// UI is how the server builds and talks to an interactive session's
// interface.
type UI struct {
	// NewModel builds the interface of one interactive session.
	NewModel func(Session) tea.Model
	// StatusMsg, when set, turns a note for the user (a queued run's
	// place, the server stopping) into a message for the interface.
	StatusMsg func(text string) tea.Msg
}

// Session is what the interface of one SSH session may use.
type Session struct {
	// Context ends when the session's interface is dropped: the user
	// quits, or no connection took it back within Config.Keep, or the
	// server stops. Runs started with it outlive a dropped connection.
	Context context.Context
	// ID names the session's folder: derived from the key for key logins
	// (so the same key finds the same folder), random for passphrase ones.
	ID string
	// User is the name the client logged in as (not authenticated).
	User string
	// DataRoot is the folder the session may read data from ("" when
	// only the built-in sets are open).
	DataRoot string
	// StateDir is the session's own folder, the only one it writes to.
	StateDir string
	// Start starts a run through the server's queue: it checks the data
	// against the server's limits, waits for a worker and may refuse.
	Start func(ctx context.Context, cfg core.Config) (*core.Run, error)
	// Admit waits for a worker of the same queue for work that is not a
	// run (the B1 reference line), so that it cannot bypass --workers;
	// release frees the worker. It does not count against --max-runs.
	Admit func(ctx context.Context) (release func(), err error)
	// Class is the session's seat in the workshop's class: where its
	// finished runs are reported, its display name, and, for an
	// instructor's key, the class board and pushes. Nil when the class is
	// full.
	Class *class.Seat
}

// ExecRequest is one remote command of an SSH session.
type ExecRequest struct {
	// Args are the command's words (`budget --q 0.01 …`).
	Args []string
	// DataRoot and StateDir confine the command's path flags: files read
	// come from DataRoot, what is written goes to StateDir.
	DataRoot, StateDir string
	Stdout, Stderr     io.Writer
	// Admit, called by a run once its configuration is known and before
	// it starts, checks the configuration's data against the server's
	// limits (confining its paths to DataRoot, which it may rewrite to
	// their real form) and waits for a worker. The run calls release when
	// it has ended.
	Admit func(ctx context.Context, cfg *core.Config) (release func(), err error)
}

// withDefaults fills the documented defaults and checks what is required.
func (c Config) withDefaults() (Config, error) {
	if c.Addr == "" {
		c.Addr = ":2222"
	}
	if c.HostKeyPath == "" {
		p, err := DefaultHostKeyPath()
		if err != nil {
			return c, err
		}
		c.HostKeyPath = p
	}
	if c.AuthorizedKeys == "" && c.PassphraseFile == "" {
		return c, errors.New("give --authorized-keys FILE, --passphrase-file FILE or both: the server does not open to anyone")
	}
	if c.StateDir == "" {
		return c, errors.New("a state folder is required (--state-dir)")
	}
	if c.NewModel == nil {
		return c, errors.New("serve: Config.NewModel is required")
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.MaxRuns <= 0 {
		c.MaxRuns = 2
	}
	if c.MaxCells <= 0 {
		c.MaxCells = 50000
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 30 * time.Minute
	}
	if c.FailDelay <= 0 {
		c.FailDelay = time.Second
	}
	if c.MaxFailures <= 0 {
		c.MaxFailures = 10
	}
	if c.FailWindow <= 0 {
		c.FailWindow = 10 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Keep < 0 {
		return c, fmt.Errorf("--keep is %v, must be 0 or more", c.Keep)
	}
	if c.Workers < 0 || c.MaxRuns < 0 {
		return c, fmt.Errorf("--workers and --max-runs must be positive")
	}
	return c, nil
}
