package serve

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	tea "charm.land/bubbletea/v2"
)

// guardModel logs a panic of the interface's Update or View with the
// session's name, then lets it go on to Bubble Tea, which ends that
// session's program (and only it) and restores its terminal.
type guardModel struct {
	inner tea.Model
	log   *slog.Logger
	id    string
}

func (g guardModel) logPanic() {
	if r := recover(); r != nil {
		g.log.Error("panic in interface", "session", logID(g.id), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		panic(r)
	}
}

func (g guardModel) Init() tea.Cmd {
	defer g.logPanic()
	return g.inner.Init()
}

func (g guardModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	defer g.logPanic()
	next, cmd := g.inner.Update(msg)
	g.inner = next
	return g, cmd
}

func (g guardModel) View() tea.View {
	defer g.logPanic()
	return g.inner.View()
}
