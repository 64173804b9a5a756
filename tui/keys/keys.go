// Package keys holds dpscope's key bindings, in one place so every pane and
// the help bar agree on them. It is a leaf package: panes import it, it
// imports no pane.
package keys

import "charm.land/bubbles/v2/key"

// KeyMap is every key binding of the program. Panes pick the ones they use
// for their help (see the XxxHelp helpers). It is a value; there is no
// package-level key state.
type KeyMap struct {
	// Global.
	NextTab, PrevTab key.Binding
	Tab              [8]key.Binding // 1–8: jump to a tab (8, Class, exists only in served sessions)
	Help             key.Binding
	Quit             key.Binding
	Yes, No          key.Binding // answers of a confirmation
	Save             key.Binding // save the session to its file

	// Forms and lists.
	Up, Down    key.Binding
	Dec, Inc    key.Binding // step the selected value down or up
	Edit        key.Binding // type a value
	Cancel      key.Binding // leave typing without a change
	PageUp      key.Binding
	PageDown    key.Binding
	ToggleTruth key.Binding // scatter: colour by cluster or true label
	Charts      key.Binding // show the next group of charts when not all fit

	// Runs.
	Start, Pause, Stop, Restart key.Binding

	// Compare.
	Pin, Export key.Binding

	// Learn.
	PrevLesson, NextLesson key.Binding
	Try                    key.Binding // set up the lesson's experiment and show its screen
	Presenter              key.Binding // toggle the presenter layout: one big chart and the text
	Step                   key.Binding // presenter: show the next part of the lesson
	Glossary               key.Binding // open or close the glossary, on every screen

	// Data opens the data picker, on every screen.
	Data key.Binding

	// Trade-off.
	Sweep  key.Binding // start or stop the background ε sweep
	Metric key.Binding // plot ARI or NMI
	Figure key.Binding // write the curve as PNG, SVG and PDF figures
}

// DefaultKeyMap returns the bindings: arrows and vim keys to move, tab and
// 1–7 for the screens, ? for help, q or ctrl+c to quit.
func DefaultKeyMap() KeyMap {
	k := KeyMap{
		NextTab: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next screen")),
		PrevTab: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev screen")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Yes:     key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:      key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "no")),
		Save:    key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save session")),

		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Dec:         key.NewBinding(key.WithKeys("left", "h", "-"), key.WithHelp("←/h", "less")),
		Inc:         key.NewBinding(key.WithKeys("right", "l", "+", "="), key.WithHelp("→/l", "more")),
		Edit:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "type value")),
		Cancel:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		PageUp:      key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown", "f"), key.WithHelp("pgdn/f", "page down")),
		ToggleTruth: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "colour: cluster/truth")),
		Charts:      key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "more charts")),

		Start:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "start")),
		Pause:   key.NewBinding(key.WithKeys("p", "space"), key.WithHelp("p", "pause/resume")),
		Stop:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "stop")),
		Restart: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "restart")),

		Pin:    key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space", "pin/unpin")),
		Export: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export CSV+JSON")),

		PrevLesson: key.NewBinding(key.WithKeys("left", "h", "["), key.WithHelp("←/h", "prev lesson")),
		NextLesson: key.NewBinding(key.WithKeys("right", "l", "]"), key.WithHelp("→/l", "next lesson")),
		Try:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "try it")),
		Presenter:  key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "presenter")),
		Step:       key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "next step")),
		Glossary:   key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "glossary")),
	}
	k.Sweep = key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "sweep ε × 3 seeds / stop"))
	k.Data = key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "data set"))
	k.Metric = key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "ARI/NMI"))
	k.Figure = key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "save figures (png, svg, pdf)"))
	names := [8]string{"run", "budget", "compare", "planner", "learn", "trade-off", "audit", "class"}
	for i := range k.Tab {
		d := string(rune('1' + i))
		k.Tab[i] = key.NewBinding(key.WithKeys(d), key.WithHelp(d, names[i]))
	}
	return k
}

// GlobalShort returns the global bindings of the one-line help bar.
func (k KeyMap) GlobalShort() []key.Binding { return []key.Binding{k.NextTab, k.Help, k.Quit} }

// GlobalFull returns the global bindings of the help overlay, one column
// (without 8, the Class tab, which only served sessions have).
func (k KeyMap) GlobalFull() []key.Binding {
	return []key.Binding{k.NextTab, k.PrevTab, k.Tab[0], k.Tab[1], k.Tab[2], k.Tab[3], k.Tab[4], k.Tab[5], k.Tab[6], k.Glossary, k.Data, k.Save, k.Help, k.Quit}
}

// Help is a help.KeyMap made of a pane's own bindings and the global ones.
type Help struct {
	Short []key.Binding   // the pane's bindings in the help bar
	Full  [][]key.Binding // the pane's columns in the overlay
	Keys  KeyMap
}

// ShortHelp returns the pane's bindings followed by the global ones.
func (h Help) ShortHelp() []key.Binding {
	return append(append([]key.Binding{}, h.Short...), h.Keys.GlobalShort()...)
}

// FullHelp returns the pane's columns followed by the global column.
func (h Help) FullHelp() [][]key.Binding {
	return append(append([][]key.Binding{}, h.Full...), h.Keys.GlobalFull())
}
