package fed

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestRecordIdentityRule is rule G42's judgement (docs/RESULTS.md, "the
// network starts as the identity on the leading components"): for each
// family of DPSCOPE_G42 ("name=data,data,…;…"), each draw (run seed i for
// the i-th), fl-dp at the record unit at ε 1–16 with the random start and
// with the identity start, one ROW line each.
func TestRecordIdentityRule(t *testing.T) {
	spec := os.Getenv("DPSCOPE_G42")
	if spec == "" {
		t.Skip("set DPSCOPE_G42 to run the judgement")
	}
	defer func(v bool) { identityStartOn = v }(identityStartOn)
	for _, fam := range strings.Split(spec, ";") {
		name, list, _ := strings.Cut(fam, "=")
		for i, ds := range strings.Split(list, ",") {
			d, seed := diagData(t, ds), uint64(i+1)
			for _, arm := range []struct {
				name     string
				identity bool
			}{{"random", false}, {"g42", true}} {
				identityStartOn = arm.identity
				var row []string
				for _, e := range []float64{1, 2, 4, 8, 16} {
					row = append(row, fmt.Sprintf("%.4f", diagRun(t, d, e, 0, -1, 0, seed)))
				}
				fmt.Printf("ROW %s %s %d %s %s\n", name, ds, seed, arm.name, strings.Join(row, " "))
			}
		}
	}
}
