// Package keys holds dpscope's key bindings, in one place so every pane and
// the help bar agree on them.
package keys

import "charm.land/bubbles/v2/key"

// KeyMap is the set of global key bindings. It implements help.KeyMap.
type KeyMap struct {
	Up, Down key.Binding
	Help     key.Binding
	Quit     key.Binding
}

// DefaultKeyMap returns the bindings: arrows and vim keys to move, ? for
// help, q or ctrl+c to quit.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Help: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp returns the bindings of the one-line help bar.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Help, k.Quit} }

// FullHelp returns the bindings of the help overlay, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down}, {k.Help, k.Quit}}
}
