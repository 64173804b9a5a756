package tui

import (
	"fmt"
	"strings"
	"time"
)

// runClock times the Run pane's run: elapsed time without the pauses, and
// an ETA from the steps done so far. The pane feeds it the run's state at
// every message; now is the time source (a test's own clock).
type runClock struct {
	now     func() time.Time
	start   time.Time     // zero before the first run
	pausedT time.Time     // when the current pause began; zero when running
	paused  time.Duration // the pauses before the current one
	end     time.Time     // zero while the run goes
}

// begin starts timing a new run.
func (c *runClock) begin() {
	*c = runClock{now: c.now, start: c.time()}
}

// replayed sets the clock to a reopened run's: ended, after el.
func (c *runClock) replayed(el time.Duration) {
	start := c.time()
	*c = runClock{now: c.now, start: start, end: start.Add(el)}
}

func (c *runClock) time() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

// follow brings the clock to the run's state: a pause stops it, a resume
// restarts it, the end of the run freezes it.
func (c *runClock) follow(s RunState) {
	if c.start.IsZero() || !c.end.IsZero() {
		return
	}
	now := c.time()
	switch {
	case s == RunPaused && c.pausedT.IsZero():
		c.pausedT = now
	case s != RunPaused && !c.pausedT.IsZero():
		c.paused += now.Sub(c.pausedT)
		c.pausedT = time.Time{}
	}
	if !s.Active() {
		c.end = now
	}
}

// elapsed is the run's time so far, pauses left out.
func (c *runClock) elapsed() time.Duration {
	t := c.end
	if t.IsZero() {
		t = c.time()
	}
	if !c.pausedT.IsZero() {
		t = c.pausedT
	}
	return max(t.Sub(c.start)-c.paused, 0)
}

// line is the progress line under the Run pane's controls: a bar of the
// steps done, the elapsed time and the ETA at the pace so far ("" before
// the first run). width is the cells it may take.
func (c *runClock) line(done, total int, state RunState, width int) string {
	if c.start.IsZero() {
		return ""
	}
	el := c.elapsed()
	frac := 0.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	var tail string
	switch {
	case !c.end.IsZero():
		tail = fmt.Sprintf(" %s", clockText(el))
	case state == RunPaused:
		tail = fmt.Sprintf(" %s · paused", clockText(el))
	case done > 0 && total > done:
		eta := time.Duration(float64(el) / float64(done) * float64(total-done))
		tail = fmt.Sprintf(" %s · ETA %s", clockText(el), clockText(eta))
	default:
		tail = fmt.Sprintf(" %s", clockText(el))
	}
	pct := fmt.Sprintf(" %3.0f%%", 100*frac)
	barW := max(width-len([]rune(tail))-len(pct)-2, 4)
	return "▕" + progressBar(frac, barW) + "▏" + pct + tail
}

// progressBar draws frac of width cells in eighths of a block, so a short
// bar still moves smoothly; it reads without colour.
func progressBar(frac float64, width int) string {
	eighths := int(frac*float64(width*8) + 0.5)
	full, part := eighths/8, eighths%8
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	if full < width {
		if part > 0 {
			b.WriteRune([]rune("▏▎▍▌▋▊▉")[part-1])
		} else {
			b.WriteRune('░')
		}
		b.WriteString(strings.Repeat("░", width-full-1))
	}
	return b.String()
}

// clockText writes d as m:ss, or h:mm:ss from an hour on.
func clockText(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
