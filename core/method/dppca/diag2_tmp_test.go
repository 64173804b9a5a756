package dppca

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/datasets"
)

func TestDiag2Tmp(t *testing.T) {
	name := os.Getenv("DIAG2")
	if name == "" {
		t.Skip()
	}
	var d *datasets.Dataset
	var tr *datasets.SimTruth
	if hs, ok := hkSets()[name]; ok {
		d, _ = simulateHK(hs)
		_, tr, _ = datasets.Simulate(hs.Types)
	} else {
		d, tr, _ = datasets.Simulate(simSets()[name])
	}
	cl := newCellLog(d)
	for _, h := range []int{200, 1000} {
		pl := Plan{H: h, Pool: 4 * h, R: 1e9, Select: SelectExcess}
		pool := min(4*h, d.Genes())
		// recompute stats as privatePrep does, exact
		_ = rand.New(rand.NewPCG(1, 0))
		m := privatePrepStats(cl, pl)
		isDE := func(j int) bool {
			if strings.HasPrefix(d.GeneIDs[j], "hk_") {
				return false
			}
			for g := range tr.DEFactors {
				if math.Abs(math.Log(tr.DEFactors[g][j])) > 0.2 {
					return true
				}
			}
			return false
		}
		ex := excessSpread(m.mean, m.raw)
		ratio := make([]float64, len(ex))
		for j := range ex {
			med := m.raw[j] - ex[j]
			ratio[j] = m.raw[j] / max(med, 1e-9)
		}
		mean := make([]float64, pool)
		for j := range mean {
			mean[j] = -float64(j)
		}
		for _, sc := range []struct {
			n string
			s []float64
		}{{"mean", mean}, {"excess", ex}, {"ratio", ratio}, {"binz", binnedZ(m.mean, m.spread, hvgBins)}} {
			keep := topByScore(sc.s, min(h, pool))
			de, hk := 0, 0
			var mr float64
			for _, k := range keep {
				if isDE(m.genes[k]) {
					de++
				}
				if strings.HasPrefix(d.GeneIDs[m.genes[k]], "hk_") {
					hk++
				}
				mr += m.mean[k]
			}
			t.Logf("%s h=%d %-6s strongDE %d hk %d meanlog %.2f", name, h, sc.n, de, hk, mr/float64(len(keep)))
		}
	}
}

type stats struct {
	mean, raw, spread []float64
	genes             []int
}

func privatePrepStats(cl cellLog, pl Plan) stats {
	x := cl.x
	n, g := x.Rows, x.Cols
	pool := min(pl.pool(), g)
	score := make([]float64, g)
	for i := range n {
		cols, vals := x.Row(i)
		var s float64
		for _, v := range vals {
			s += float64(v) * float64(v)
		}
		if s == 0 {
			continue
		}
		inv := 1 / math.Sqrt(s)
		for k, c := range cols {
			score[c] += float64(vals[k]) * inv
		}
	}
	genes := topByScore(score, pool)
	col := make([]int, g)
	for j := range col {
		col[j] = -1
	}
	for k, j := range genes {
		col[j] = k
	}
	y := make([]float64, n*pool)
	for i := range n {
		cols, vals := x.Row(i)
		for k, c := range cols {
			if j := col[c]; j >= 0 {
				y[i*pool+j] = float64(vals[k])
			}
		}
	}
	nt := float64(n)
	mean := make([]float64, pool)
	sp := make([]float64, pool)
	for i := range n {
		for j := range pool {
			mean[j] += y[i*pool+j] / nt
		}
	}
	for i := range n {
		for j := range pool {
			sp[j] += math.Abs(y[i*pool+j]-mean[j]) / nt
		}
	}
	raw := make([]float64, pool)
	spread := make([]float64, pool)
	for j := range sp {
		raw[j] = madToSD * sp[j]
		spread[j] = max(raw[j], sdFloor)
	}
	return stats{mean, raw, spread, genes}
}
