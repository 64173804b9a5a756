package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core/safe"
)

// safeCmd wraps cmd so that a panic in it becomes an ErrorMsg in the status
// line instead of ending the program: Bubble Tea would restore the
// terminal, but would also end every run of the session with it. A batch
// is wrapped command by command. Nil stays nil.
func safeCmd(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		var msg tea.Msg
		if err := safe.Call(func() error { msg = cmd(); return nil }); err != nil {
			return ErrorMsg{err}
		}
		if b, ok := msg.(tea.BatchMsg); ok {
			wrapped := make(tea.BatchMsg, len(b))
			for i, c := range b {
				wrapped[i] = safeCmd(c)
			}
			return wrapped
		}
		return msg
	}
}
