// Package tui is dpscope's terminal interface, built on Bubble Tea v2.
//
// The root Model shows five screens as tabs — Run, Budget, Compare, Planner
// and Learn — each one Pane. The root routes window sizes to every pane,
// keys to the focused one, and engine events to all of them. It never
// blocks: a run's events arrive through a re-armed tea.Cmd (waitForEvents),
// anything slow (σ calibration, PLD, trade-off curves, exports) runs in a
// tea.Cmd whose closure captures copies of what it needs, and charts are
// redrawn on a frame tick (about 15 per second) however fast events come.
//
// Construct it with New(Config) and run it with tea.NewProgram; see Config
// for the fields main sets.
package tui
