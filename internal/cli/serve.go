package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/internal/serve"
)

// serveFlags are the flags of `dpscope serve`.
type serveFlags struct {
	cfg       serve.Config
	logFormat string
	load      loadFlags // the data set every session opens on
}

func newServeCmd(env Env) *cobra.Command {
	sf := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the interface over SSH, for a workshop or a remote machine",
		Long: `serve listens for SSH connections and gives every session its own
interface: participants type only "ssh -p 2222 HOST". With a command
(ssh -p 2222 HOST -- budget --q 0.01 --sigma 1 --steps 1000) a session runs
dpscope run or budget instead; nothing else is served (no shell, no other
command, no forwarding, no subsystem).

Who gets in: the keys of --authorized-keys and/or whoever types the
passphrase of --passphrase-file (its first line). At least one is required.
Failed passphrases are slowed down and an address that fails too often is
locked out for ten minutes. The keys of --instructor-keys get in too and
open on the Class tab: every participant's finished runs on one ε–ARI
chart, a leaderboard of the best ARI at ε ≤ a target, and keys that push
the instructor's settings (a preset) or a message to every session.
Participants pick the name the board shows on their own Class tab.

What a session may touch: data sets from --data-dir (and the built-in ones),
with every path resolved, links included, and refused outside it; it writes
only into its own folder under --state-dir, which --allow-scp lets it
download, read-only (scp -P 2222 HOST:FILE .; a passphrase session logs in
with its folder's name as the user, shown in its interface). Runs share --workers workers in
one queue; each session may have --max-runs queued or running, on data sets
of at most --max-cells cells. SIGTERM stops runs, tells the sessions and
exits within 10 s.

A session that disconnects keeps its interface, its runs (going or
queued) and their results for --keep; within it, the same key finds them
again by connecting as before, and a passphrase session with the one-time
token on its last line: ssh -t -p 2222 HOST resume TOKEN. A second
connection with the same key takes the interface over. --keep 0 drops
everything with the connection.`,
		Example: `  dpscope serve --authorized-keys ~/.ssh/authorized_keys
  dpscope serve --passphrase-file workshop.txt --data-dir ~/data --workers 2
  dpscope serve --passphrase-file workshop.txt --instructor-keys ~/.ssh/id_ed25519.pub`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return sf.run(cmd, env)
		}),
	}
	f := cmd.Flags()
	c := &sf.cfg
	f.StringVar(&c.Addr, "addr", ":2222", "address to listen on, HOST:PORT")
	f.StringVar(&c.HostKeyPath, "host-key", "", "host key file, created (ed25519, mode 0600) when missing (default: the user config folder's dpscope/ssh_host_ed25519_key)")
	f.StringVar(&c.AuthorizedKeys, "authorized-keys", "", "OpenSSH authorized_keys file: these keys get in")
	f.StringVar(&c.InstructorKeys, "instructor-keys", "", "OpenSSH authorized_keys file: these keys get in and see the class board (every participant's runs, a leaderboard) and may push a preset or a message to every session")
	f.StringVar(&c.PassphraseFile, "passphrase-file", "", "file whose first line is the workshop passphrase (at least 8 characters)")
	f.StringVar(&c.DataDir, "data-dir", "", "the folder sessions may read data sets from (default: the built-in sets only)")
	f.StringVar(&c.StateDir, "state-dir", "", "the folder that holds one folder per session (default: the user config folder's dpscope/sessions)")
	f.IntVar(&c.Workers, "workers", 0, "runs going at once, server-wide (default: the number of cores)")
	f.IntVar(&c.MaxRuns, "max-runs", 2, "runs one session may have queued or running")
	f.IntVar(&c.MaxCells, "max-cells", 50000, "refuse data sets with more cells than this")
	f.DurationVar(&c.IdleTimeout, "idle-timeout", 30*time.Minute, "end an interface with no keystroke and no run for this long")
	f.DurationVar(&c.Keep, "keep", time.Hour, "keep a disconnected session's interface and runs this long for it to come back (0: drop them with the connection)")
	f.BoolVar(&c.AllowSFTP, "allow-scp", false, "let each session download its own folder read-only with scp or sftp (the SFTP subsystem)")
	f.StringVar(&sf.logFormat, "log-format", "text", "log to standard error as text or json")
	sf.load.register(cmd, "builtin:default")
	return cmd
}

// run checks the flags, loads the first data set and serves until the
// command's context ends (SIGTERM, Ctrl-C).
func (sf *serveFlags) run(cmd *cobra.Command, env Env) error {
	c := sf.cfg
	for name, v := range map[string]int{"--workers": c.Workers, "--max-runs": c.MaxRuns, "--max-cells": c.MaxCells} {
		if v < 0 || (v == 0 && name != "--workers") {
			return usagef("%s is %d, must be positive", name, v)
		}
	}
	if c.IdleTimeout <= 0 {
		return usagef("--idle-timeout is %v, must be positive", c.IdleTimeout)
	}
	if c.Keep < 0 {
		return usagef("--keep is %v, must be 0 or more", c.Keep)
	}
	if c.AuthorizedKeys == "" && c.PassphraseFile == "" {
		return usagef("give --authorized-keys FILE, --passphrase-file FILE or both: dpscope serve does not open to anyone")
	}
	if c.StateDir == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return usagef("no user config folder: give --state-dir")
		}
		c.StateDir = filepath.Join(dir, "dpscope", "sessions")
	}
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		return fmt.Errorf("--state-dir: %w", err)
	}
	// The first data set is read like any session's: built-in, or inside
	// --data-dir.
	if !strings.HasPrefix(sf.load.data, "builtin:") {
		if c.DataDir == "" {
			return usagef("--data %s: sessions read data only from --data-dir, which is not given (or name a built-in set)", sf.load.data)
		}
		real, err := serve.Confine(c.DataDir, sf.load.data)
		if err != nil {
			return usagef("--data: %v (it must be built-in or inside --data-dir)", err)
		}
		sf.load.data = real
	}
	c.Version = BuildVersion()
	switch sf.logFormat {
	case "text":
		c.Logger = slog.New(slog.NewTextHandler(env.Stderr, nil))
	case "json":
		c.Logger = slog.New(slog.NewJSONHandler(env.Stderr, nil))
	default:
		return usagef("--log-format is %q, must be text or json", sf.logFormat)
	}
	data, err := sf.load.load(cmd)
	if err != nil {
		return err
	}
	if env.ServeUI == nil {
		return errors.New("this build has no interface to serve")
	}
	c.UI = env.ServeUI(data)
	c.Exec = remoteExec
	srv, err := serve.New(c)
	if err != nil {
		return err
	}
	return srv.ListenAndServe(cmd.Context())
}

// remoteExec runs one remote command of a session (serve checked that it
// is run or budget) with the session's streams and confinement.
func remoteExec(ctx context.Context, req serve.ExecRequest) int {
	return Execute(ctx, req.Args, Env{Stdout: req.Stdout, Stderr: req.Stderr, remote: &req})
}
