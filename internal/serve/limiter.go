package serve

import (
	"net"
	"sync"
	"time"
)

// limiter counts failed passphrase attempts per remote address: an address
// with max failures within window is refused without a check until its
// oldest failure leaves the window. The zero time is never used; now is
// injectable for tests.
type limiter struct {
	mu       sync.Mutex
	max      int
	window   time.Duration
	failures map[string][]time.Time
	now      func() time.Time
}

func newLimiter(max int, window time.Duration) *limiter {
	return &limiter{max: max, window: window, failures: map[string][]time.Time{}, now: time.Now}
}

// maxTracked is the size of the failure table past which it is swept.
const maxTracked = 10000

// hostOf is the address without its port: a client reconnecting from a new
// port is the same client.
func hostOf(addr net.Addr) string {
	if addr == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// recent drops the failures of host older than the window and returns the
// rest. Called with mu held.
func (l *limiter) recent(host string) []time.Time {
	cut := l.now().Add(-l.window)
	fs := l.failures[host]
	i := 0
	for i < len(fs) && fs[i].Before(cut) {
		i++
	}
	fs = fs[i:]
	if len(fs) == 0 {
		delete(l.failures, host)
		return nil
	}
	l.failures[host] = fs
	return fs
}

// blocked reports whether host has used up its attempts.
func (l *limiter) blocked(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(host)) >= l.max
}

// fail records a failure of host and reports whether host is now blocked.
func (l *limiter) fail(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) >= maxTracked {
		// Many addresses failing (a scan): forget those whose failures
		// left the window, so the table cannot grow without end.
		for h := range l.failures {
			l.recent(h)
		}
	}
	fs := append(l.recent(host), l.now())
	l.failures[host] = fs
	return len(fs) >= l.max
}
