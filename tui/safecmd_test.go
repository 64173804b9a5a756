package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core/safe"
)

func TestSafeCmdTurnsPanicsIntoErrors(t *testing.T) {
	if safeCmd(nil) != nil {
		t.Error("safeCmd(nil) is not nil")
	}
	boom := func() tea.Msg {
		var s []int
		return s[15] // index out of range [15] with length 0
	}
	msg := safeCmd(boom)()
	em, ok := msg.(ErrorMsg)
	if !ok || !safe.IsPanic(em.Err) || !strings.Contains(em.Err.Error(), "index out of range [15]") {
		t.Fatalf("safeCmd(panicking)() = %#v, want an ErrorMsg with the recovered panic", msg)
	}
	fine := func() tea.Msg { return StatusMsg{Text: "ok"} }
	batch, ok := safeCmd(tea.Batch(fine, boom))().(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("safeCmd(batch)() = %#v, want a batch of 2", batch)
	}
	if got := batch[0](); got != (StatusMsg{Text: "ok"}) {
		t.Errorf("first command of the batch = %#v, want its own message", got)
	}
	if _, ok := batch[1]().(ErrorMsg); !ok {
		t.Error("the panicking command of a batch was not wrapped")
	}
}

// TestPanickingCommandKeepsTheSession: a panic in a command reaches Update
// as an error in the status line; the model (and its run) lives on.
func TestPanickingCommandKeepsTheSession(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 100, 30)
	wrapped := safeCmd(func() tea.Msg { panic("planner broke") })
	next, _ := m.Update(wrapped())
	if s := next.(Model).Status(); !strings.Contains(s, "planner broke") || !strings.Contains(s, "internal error") {
		t.Errorf("status after a panicking command = %q, want the internal error", s)
	}
}
