// Package serve is `dpscope serve`: the terminal interface served over SSH
// for a workshop room or a remote analyst, built on charm.land/wish and
// charm.land/ssh.
//
// Every SSH session gets its own interface (its own model, sized to its
// terminal, in its colour profile, resized with it) or runs one of the two
// commands allowed remotely (`run`, `budget`); nothing else is served: no
// shell, no other command, no port or agent forwarding, no subsystem but,
// when allowed, a read-only SFTP view of the session's folder (sftp.go). Who
// gets in is decided by an authorized_keys file and/or a workshop
// passphrase (auth.go); what a session may read is confined to the data
// folder and what it writes to its own folder under the state folder
// (confine.go); runs share one queue of workers (queue.go). A session's
// interface lives in a host on the server, not in its connection, and is
// kept for Config.Keep after a disconnect so that the session finds its
// runs again: by its key, or by a one-time token for a passphrase session
// (host.go, keep.go, resume.go).
//
// The package knows neither the interface nor the command line: the caller
// (internal/cli, with main.go's model factory) passes them in as functions,
// so that main stays the only importer of tui.
package serve
