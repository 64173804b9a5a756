package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
)

// frameInterval is the chart redraw period: about 15 frames a second.
const frameInterval = time.Second / 15

// maxBatch bounds the events one EngineEventsMsg carries.
const maxBatch = 256

// runHandleMsg reports the outcome of core.Start for run id.
type runHandleMsg struct {
	id  int
	cfg core.Config
	run *core.Run
	err error
}

// startRunCmd starts a run in a command: a method's factory may load data.
// It captures copies only; start is core.Start or Config.Start.
func startRunCmd(start func(context.Context, core.Config) (*core.Run, error), ctx context.Context, id int, cfg core.Config) tea.Cmd {
	return func() tea.Msg {
		run, err := start(ctx, cfg)
		return runHandleMsg{id: id, cfg: cfg, run: run, err: err}
	}
}

// waitForEvents blocks on the run's channel in a command and returns what is
// pending as one message (the realtime pattern; Update re-arms it).
func waitForEvents(ch <-chan core.Event, id int) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return EngineClosedMsg{ID: id}
		}
		batch := []core.Event{ev}
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					// The close is seen again by the next wait.
					return EngineEventsMsg{ID: id, Events: batch}
				}
				batch = append(batch, ev)
			default:
				return EngineEventsMsg{ID: id, Events: batch}
			}
		}
		return EngineEventsMsg{ID: id, Events: batch}
	}
}

// frameTick schedules the next frame.
func frameTick() tea.Cmd {
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return FrameMsg{} })
}

// controlCmd calls a run control in a command (the run's methods are safe
// for concurrent use; the closure holds the handle, not the model).
func controlCmd(run *core.Run, f func(*core.Run)) tea.Cmd {
	return func() tea.Msg {
		f(run)
		return nil
	}
}
