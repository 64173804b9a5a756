//go:build !linux

package cpuplace

import (
	"errors"
	"time"
)

// RoundTrip returns an error: pinning threads to CPUs is done here through
// Linux's sched_setaffinity.
func RoundTrip(n int) (time.Duration, error) {
	return 0, errors.New("cpuplace: RoundTrip needs Linux")
}
