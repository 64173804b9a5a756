package dppca

import (
	"os"
	"strconv"

	"github.com/dpscope/dpscope/datasets"
	"strings"
	"testing"
)

func TestDiagTmp(t *testing.T) {
	name := os.Getenv("DIAG")
	if name == "" {
		t.Skip()
	}
	var hs hkSet
	hs = hkSets()[name]
	if v := os.Getenv("DE"); v != "" {
		f := strings.Split(v, ",")
		for g := range hs.Types.Groups {
			hs.Types.Groups[g].DEProb, _ = strconv.ParseFloat(f[0], 64)
			hs.Types.Groups[g].DEFacLoc, _ = strconv.ParseFloat(f[1], 64)
		}
		hs.Types.LibLoc, _ = strconv.ParseFloat(f[2], 64)
	}
	_, tr, _ := datasets.Simulate(hs.Types)
	d, err := simulateHK(hs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("B1 %.3f", b1(t, d, 0))
	for _, sel := range []string{"mean", "excess", "spread"} {
		o, _ := Parse(map[string]string{"select": sel})
		src, _ := NewSource(d, 0)
		a, out := releaseARI(t, src, false, 0, o, 0)
		nhk, nde := 0, 0
		for _, j := range out.Matrix.Genes {
			if strings.HasPrefix(d.GeneIDs[j], "hk_") {
				nhk++
				continue
			}
			for g := range tr.DEFactors {
				if tr.DEFactors[g][j] != 1 {
					nde++
					break
				}
			}
		}
		t.Logf("%s ARI %.3f h %d hk %d de %d", sel, a, out.Matrix.H, nhk, nde)
	}
}
