package tui

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestRunClockLeavesPausesOutAndFreezesAtTheEnd drives the clock with a
// fake time: 10 s running, 20 s paused, 5 s running, then the end.
func TestRunClockLeavesPausesOutAndFreezesAtTheEnd(t *testing.T) {
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	c := runClock{now: func() time.Time { return now }}
	if l := c.line(0, 100, RunIdle, 40); l != "" {
		t.Errorf("before a run: %q, want nothing", l)
	}
	c.begin()
	c.follow(RunRunning)
	now = now.Add(10 * time.Second)
	if got := c.line(25, 100, RunRunning, 40); !strings.HasSuffix(got, " 25% 0:10 · ETA 0:30") {
		t.Errorf("a quarter in 10 s: %q, want 25%% 0:10 · ETA 0:30", got)
	}
	c.follow(RunPaused)
	now = now.Add(20 * time.Second)
	if got := c.line(25, 100, RunPaused, 40); !strings.HasSuffix(got, "0:10 · paused") {
		t.Errorf("paused: %q, want the elapsed time stopped at 0:10", got)
	}
	c.follow(RunRunning)
	now = now.Add(5 * time.Second)
	if e := c.elapsed(); e != 15*time.Second {
		t.Errorf("elapsed %v, want 15s (the pause left out)", e)
	}
	c.follow(RunFinished)
	now = now.Add(time.Hour)
	if got := c.line(100, 100, RunFinished, 40); !strings.HasSuffix(got, "100% 0:15") {
		t.Errorf("finished: %q, want 100%% 0:15, frozen", got)
	}
	for _, w := range []int{20, 40, 80} {
		if n := utf8.RuneCountInString(c.line(50, 100, RunFinished, w)); n > w {
			t.Errorf("width %d: line of %d cells", w, n)
		}
	}
}

func TestProgressBar(t *testing.T) {
	for _, tc := range []struct {
		frac  float64
		width int
		want  string
	}{
		{0, 4, "░░░░"},
		{1, 4, "████"},
		{0.5, 4, "██░░"},
		{0.5 + 1.0/16, 4, "██▎░"}, // two eighths of the third cell
	} {
		if got := progressBar(tc.frac, tc.width); got != tc.want {
			t.Errorf("progressBar(%v, %d) = %q, want %q", tc.frac, tc.width, got, tc.want)
		}
	}
	if got := clockText(3725 * time.Second); got != "1:02:05" {
		t.Errorf("clockText(3725 s) = %q, want 1:02:05", got)
	}
}
