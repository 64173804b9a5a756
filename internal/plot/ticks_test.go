package plot

import (
	"slices"
	"testing"
)

func TestPreciseTicksDiffer(t *testing.T) {
	var labels []string
	for _, tk := range (preciseTicks{}).Ticks(2.115, 2.125) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	// plot.DefaultTicks alone labels these 2.1, 2.1, 2.1.
	if !slices.Equal(labels, []string{"2.115", "2.12", "2.125"}) {
		t.Errorf("labels %q, want 2.115 2.12 2.125", labels)
	}
}
