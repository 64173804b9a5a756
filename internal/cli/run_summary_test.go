package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestSummaryNotesApart: a WarningEvent marked Note (a method's plan)
// goes to the summary's notes and prints as "note", a plain one to its
// warnings and prints as "warning".
func TestSummaryNotesApart(t *testing.T) {
	s := newSummary(core.Config{Method: "dppca", Mode: core.ModeSound})
	s.observe(core.WarningEvent{Message: "K = 8, p = 10", Note: true})
	s.observe(core.WarningEvent{Message: "only 2 of K = 8 clusters hold cells"})
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Notes, Warnings []string }
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 1 || got.Notes[0] != "K = 8, p = 10" || len(got.Warnings) != 1 || got.Warnings[0] != "only 2 of K = 8 clusters hold cells" {
		t.Errorf("summary notes %q, warnings %q: want the plan as the one note and the collapse as the one warning", got.Notes, got.Warnings)
	}
	var text bytes.Buffer
	s.write(&text)
	for _, line := range strings.Split(text.String(), "\n") {
		if strings.Contains(line, "K = 8, p = 10") && !strings.HasPrefix(line, "note") {
			t.Errorf("the plan's line %q does not start with \"note\"", line)
		}
		if strings.Contains(line, "clusters hold cells") && !strings.HasPrefix(line, "warning") {
			t.Errorf("the warning's line %q does not start with \"warning\"", line)
		}
	}
}
