// Package tui is dpscope's terminal interface, built on Bubble Tea.
//
// The root Model routes window sizes to every pane and keys to the focused
// one. It never blocks: anything slow runs in a tea.Cmd.
package tui
