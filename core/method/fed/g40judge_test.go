package fed

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestG40Judgement runs rule G40's judgement: per draw, fl-dp sound at the
// record unit at ε = 1, 2, 4, 8, 16 with --lr 10 (today) and with the
// rate unset (G40).
func TestG40Judgement(t *testing.T) {
	spec := os.Getenv("DPSCOPE_G40")
	if spec == "" {
		t.Skip()
	}
	for _, fam := range strings.Split(spec, ";") {
		name, list, _ := strings.Cut(fam, "=")
		for i, ds := range strings.Split(list, ",") {
			d, seed := diagData(t, ds), uint64(i+1)
			for _, arm := range []struct {
				name string
				lr   float64
			}{{"old", 10}, {"g40", 0}} {
				var row []string
				for _, e := range []float64{1, 2, 4, 8, 16} {
					row = append(row, fmt.Sprintf("%.4f", diagRun(t, d, e, 0, -1, arm.lr, seed)))
				}
				fmt.Printf("ROW %s %s %d %s %s\n", name, ds, seed, arm.name, strings.Join(row, " "))
			}
		}
	}
}
