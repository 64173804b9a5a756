//go:build !unix

package cli

import "errors"

// makeFIFO fails: named pipes made by mkfifo are a Unix thing, and the
// cases that read one then log that they have none.
func makeFIFO(string) error { return errors.New("no mkfifo on this system") }
