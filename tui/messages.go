package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
)

// StatusMsg puts a line in the status bar.
type StatusMsg struct {
	Text string
	Err  bool
}

// ErrorMsg is an error to show in the status line.
type ErrorMsg struct{ Err error }

// ErrorCmd returns a command that reports err in the status line.
func ErrorCmd(err error) tea.Cmd { return func() tea.Msg { return ErrorMsg{err} } }

// statusCmd returns a command that shows text in the status line.
func statusCmd(text string) tea.Cmd { return func() tea.Msg { return StatusMsg{Text: text} } }

// ParamsMsg carries the run parameters after an edit, to every pane.
type ParamsMsg struct{ Params runParams }

// StartRunMsg asks the root to start a run with Config.
type StartRunMsg struct{ Config core.Config }

// PatchMsg asks the root to send a live change to the running run.
type PatchMsg struct{ Patch core.Patch }

// RunControlMsg asks the root to pause, resume, stop or restart.
type RunControlMsg struct {
	Action RunAction
	Config core.Config // the run to start, for ActionRestart
}

// RunAction is a run control.
type RunAction int

// The run controls.
const (
	ActionPause RunAction = iota // pause, or resume when paused
	ActionStop
	ActionRestart
)

// RunStartedMsg tells every pane a run started with Config (ID counts runs).
type RunStartedMsg struct {
	ID     int
	Config core.Config
}

// EngineEventsMsg carries the events of run ID that were pending, in order.
type EngineEventsMsg struct {
	ID     int
	Events []core.Event
}

// EngineClosedMsg says run ID's event channel is closed: the run is over.
type EngineClosedMsg struct{ ID int }

// FrameMsg is the frame tick: panes redraw what changed.
type FrameMsg struct{}

// emit returns a command that delivers msg.
func emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// TabShownMsg tells a pane it is now on screen; panes put off costly work
// (the Planner's PLD curves) until they are shown.
type TabShownMsg struct{}
