//go:build unix

package cli

import "syscall"

// makeFIFO makes a named pipe at path, for the bad-input cases that read one.
func makeFIFO(path string) error { return syscall.Mkfifo(path, 0o600) }
