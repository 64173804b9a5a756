// Command demo runs the interface on the fake engine (development only).
package main

import (
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/tui"
	"github.com/dpscope/dpscope/tui/internal/fake"
)

func main() {
	fake.Register("fake", 20*time.Millisecond)
	m := tui.New(tui.Config{Summary: datasets.Summary{Name: "default", Source: "builtin:default", Cells: 2000, KeptCells: 2000}, Backend: "demo", Method: "fake", ExportDir: os.TempDir()})
	if _, err := tea.NewProgram(m).Run(); err != nil {
		fmt.Println(err)
	}
}
