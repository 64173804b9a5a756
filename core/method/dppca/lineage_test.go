package dppca

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/fixture/baseline"
)

// lineageSet is a lineage simulation (datasets.LineageConfig, moved
// there from this file so that other packages' tests draw the same data):
// cell types within two lineages, built from label-free facts of the real
// sets that no earlier family had (TestShapeFacts, commit "dppca:
// label-free shape facts"; issue 16 points 2 and 5, the fifteenth
// attempt).
type lineageSet = datasets.LineageConfig

// simulateLineage draws a lineageSet.
func simulateLineage(s lineageSet) (*datasets.Dataset, error) { return datasets.SimulateLineage(s) }

// lineageTypes are the types' shares, 1/(g+2) for g = 0 … 11 (the profile
// of the other many-type families): lineage 0 the even types (0.55 of the
// cells), lineage 1 the odd ones.
func lineageTypes() []float64 { return typeShares(12) }

// typeShares are k types' shares 1/(g+2), g = 0 … k−1.
func typeShares(k int) []float64 { return datasets.TypeShares(k) }

// lineageFor is the lineage simulation on 2,500 cells × 4,000 genes (the
// nested families' shape) with 12 types of lineageTypes' shares, the
// types' DE probability typeDE, dropout
// as simSets', the libraries' log-location libLoc, and the lineage
// parameters; the types' DE is log-normal(typeLoc, 0.4).
func lineageFor(linDE, linLoc, shift, typeDE, typeLoc, libLoc float64, seed uint64) lineageSet {
	return lineageShape(2500, 4000, lineageTypes(), linDE, linLoc, shift, typeDE, typeLoc, libLoc, seed)
}

// lineageShape is lineageFor on cells × genes with types of shares probs
// (datasets.LineageShape).
func lineageShape(cells, genes int, probs []float64, linDE, linLoc, shift, typeDE, typeLoc, libLoc float64, seed uint64) lineageSet {
	return datasets.LineageShape(cells, genes, probs, linDE, linLoc, shift, typeDE, typeLoc, libLoc, seed)
}

// lineageTarget holds the real sets' facts the lineage family is matched
// to: the means over mouse_bladder, mouse_bladder_2100 and pbmc_4k
// (TestShapeFacts at h = 200; decay as a geometric mean), each with the
// scale its squared deviation is divided by.
var lineageTarget = shapeTarget{0.426, 0.035, 0.575, 0.88, 0.543, 0.770, 0.67, 1000}

// shapeTarget are the facts at h = 200 a lineage family is matched to,
// the sd of log library and the median library.
type shapeTarget struct {
	TopK, Decay, Part, Bi, LibCor, W2, LibSD, Median float64
}

// lineageLoss is the matching loss of facts f (h = 200) and the sd of
// log library sd.
func lineageLoss(f shapeFacts, sd float64) float64 { return lineageLossTo(f, sd, lineageTarget) }

// lineageLossTo is lineageLoss against the target tg.
func lineageLossTo(f shapeFacts, sd float64, tg shapeTarget) float64 {
	sq := func(a, b, s float64) float64 { return (a - b) * (a - b) / (s * s) }
	return sq(f.TopK, tg.TopK, 0.05) + sq(math.Log(f.Decay), math.Log(tg.Decay), 0.3) +
		sq(f.Part, tg.Part, 0.1) + sq(f.Bi, tg.Bi, 0.03) + sq(math.Abs(f.LibCor), tg.LibCor, 0.1) +
		sq(f.W2, tg.W2, 0.03) + sq(sd, tg.LibSD, 0.1)
}

// lineageGrid are the lineage parameters TestLineageMatch tries: the
// parents' DE probability, its log-normal location, the library shift.
var lineageGrid = struct{ DE, Loc, Shift []float64 }{
	DE: []float64{0.2, 0.4}, Loc: []float64{0.5, 1.0}, Shift: []float64{0, 0.5, 1.0, 1.5},
}

// solveLibLoc returns the libraries' log-location that puts the median
// library of s near median (three multiplicative steps from ln median).
func solveLibLoc(t testing.TB, s lineageSet, median float64) (lineageSet, *datasets.Dataset) {
	t.Helper()
	s.Types.LibLoc = math.Log(median)
	var d *datasets.Dataset
	for range 3 {
		var err error
		d, err = simulateLineage(s)
		if err != nil {
			t.Fatal(err)
		}
		m := countFactsOf(d).Median
		s.Types.LibLoc += math.Log(median / max(m, 1))
	}
	return s, d
}

// TestLineageMatch matches the lineage family to lineageTarget by the rule
// stated before it was drawn (commit "dppca: lineage family, its matching
// rule"): every point of lineageGrid with the types' DE probability 0.1,
// the libraries' location solved for a median library of 1,000 (between
// the real sets' 315, 895 and 1,600), seed 51 (a matching draw no
// comparison uses); the point of least lineageLoss is kept (the first in
// grid order on a tie). Then the types' DE probability is set, as the
// nested families' was, for B1 in [0.5, 0.7] (seeds 0–4): the first of
// 0.1, 0.07, 0.05, 0.035, 0.14, 0.2 that lands there. Long:
// DPSCOPE_DPPCA_LINEAGE=1 (the grid), =b1 (the B1 step at the kept point),
// =b1loc (the amended B1 step over the types' DE location), =off (the
// second family's matching, linOffMatch), =off16 (the third's,
// linOff16Match).
func TestLineageMatch(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPPCA_LINEAGE")
	if env == "" {
		t.Skip("long: set DPSCOPE_DPPCA_LINEAGE=1 (or b1) to match the lineage family")
	}
	if v := os.Getenv("DPSCOPE_DPPCA_LINLOC"); v != "" {
		lineageLocs = fixture.EnvFloats(t, "DPSCOPE_DPPCA_LINLOC", nil)
	}
	if env == "off" {
		linOffMatch(t)
		return
	}
	if env == "off16" {
		linOff16Match(t)
		return
	}
	if env == "b1" || env == "b1loc" {
		base := lineageFor(0.4, 1.0, 1.0, 0.1, 0.1, 7.278, 51) // the grid's match
		type step struct{ de, loc float64 }
		var steps []step
		for _, de := range []float64{0.1, 0.07, 0.05, 0.035, 0.14, 0.2} {
			steps = append(steps, step{de, 0.1})
		}
		if env == "b1loc" {
			// the amendment (commit "dppca: simlin12's B1 step, amended"):
			// at Splatter's location 0.1 no probability reached B1 0.5, so
			// the types' DE location is raised at probability 0.1
			steps = nil
			for _, loc := range lineageLocs {
				steps = append(steps, step{0.1, loc})
			}
		}
		for _, st := range steps {
			s := base
			s.Types.Groups = slices.Clone(s.Types.Groups)
			for g := range s.Types.Groups {
				s.Types.Groups[g].DEProb, s.Types.Groups[g].DEFacLoc = st.de, st.loc
			}
			s, d := solveLibLoc(t, s, lineageTarget.Median)
			var b []float64
			for seed := range uint64(5) {
				b = append(b, baseline.B1(t, d, seed))
			}
			m, sd := sweep.Moments(b)
			f := shapeFactsOf(t, d, 12, 200)
			t.Logf("simlin12 types' DE %.3f at log-normal(%.2f, 0.4) libLoc %.3f: B1 %.3f±%.3f; h 200: topK %.3f decay %.3f part %.3f bi %.2f libcor %+.2f W2 %.3f above %d loss %.1f",
				st.de, st.loc, s.Types.LibLoc, m, sd, f.TopK, f.Decay, f.Part, f.Bi, f.LibCor, f.W2, f.Above, lineageLoss(f, logLibSD(d)))
			if m >= 0.5 && m <= 0.7 {
				t.Logf("chosen types' DE %.3f at location %.2f", st.de, st.loc)
				return
			}
		}
		return
	}
	best, bestLoss := "", math.Inf(1)
	for _, de := range lineageGrid.DE {
		for _, loc := range lineageGrid.Loc {
			for _, sh := range lineageGrid.Shift {
				s, d := solveLibLoc(t, lineageFor(de, loc, sh, 0.1, 0.1, 7, 51), lineageTarget.Median)
				f := shapeFactsOf(t, d, 12, 200)
				sd := logLibSD(d)
				loss := lineageLoss(f, sd)
				row := fmt.Sprintf("linDE %.1f loc %.1f shift %.1f libLoc %.3f: median %.0f sdlib %.2f topK %.3f decay %.3f part %.3f bi %.2f libcor %+.2f W2 %.3f above %d loss %.1f",
					de, loc, sh, s.Types.LibLoc, countFactsOf(d).Median, sd, f.TopK, f.Decay, f.Part, f.Bi, f.LibCor, f.W2, f.Above, loss)
				t.Log(row)
				if loss < bestLoss {
					best, bestLoss = row, loss
				}
			}
		}
	}
	t.Logf("MATCH %s", best)
}

// lineageLocs are the types' DE locations the amended B1 step tries in
// order (DPSCOPE_DPPCA_LINEAGE=b1loc; DPSCOPE_DPPCA_LINLOC overrides, for
// a bracket's midpoint).
var lineageLocs = []float64{0.3, 0.5, 0.8, 1.2}

// lineageSets are the matched lineage families (TestLineageMatch's log);
// simlin12 with LinDE 0.4, LinLoc 1.0, Shift 1.0 (the grid's least loss,
// 51.5 at the types' Splatter DE), its types' DE 0.1 at log-normal(0.8,
// 0.4) (the amended B1 step: B1 0.527 ± 0.033; locations 0.3 and 0.5 gave
// 0.142 and 0.187) and the libraries' location solved again, 7.275 (median
// library about 1,000). At h = 200 the kept draw has topK 0.249, decay
// 0.043, part 0.424, bi 0.98, libcor −0.92, W2K/WK 0.877 and 6 eigenvalues
// above the edge (the real sets 0.38–0.48, 0.026–0.064, 0.46–0.69,
// 0.85–0.91, |0.50–0.57|, 0.72–0.81, 8–12).
//
// simlinoff12: linOffMatch's least loss (83.5), φ 0.5 at 0.5 counts per
// cell, libraries at 7.064 (median 1,003): at h 200 topK 0.258, decay
// 0.040, part 0.486, bi 0.98, libcor +0.92, W2K/WK 0.858, 4 above the
// edge; at h 800 communality 0.257/0.207/0.238/0.188 by band, W2K/WK
// 0.734.
//
// simlinoff16: linOff16Match's least loss (45.4), φ 0.1 at 2 counts per
// cell, libraries at 7.412 (median 1,604), at mouse_bladder_2100's shape:
// at h 200 topK 0.348, decay 0.037, part 0.589, bi 0.96, libcor +0.90,
// W2K/WK 0.841, 6 above the edge; at h 800 communality
// 0.425/0.271/0.253/0.216, W2K/WK 0.788 (mouse_bladder_2100: 0.417, 0.026,
// 0.573, 0.85, +0.50, 0.811, 8; 0.439/0.390/0.243/0.153, 0.747).
//
// The parameters live in datasets.LineageFamilies (TestLineageFamilies
// there pins them); TestSimulateLineage moved there with the generator.
func lineageSets() map[string]lineageSet { return datasets.LineageFamilies() }

// linOffTarget are the real sets' facts at h = 800 the second lineage
// family is matched to on top of lineageTarget (means of mouse_bladder,
// mouse_bladder_2100, pbmc_4k; TestShapeFacts): the communality of the
// four mean-rank bands and W2K/WK.
var linOffTarget = commTarget{[4]float64{0.507, 0.329, 0.202, 0.135}, 0.680}

// commTarget are the facts at h = 800 a lineage family with markers is
// matched to: the four mean-rank bands' communality and W2K/WK.
type commTarget struct {
	Comm [4]float64
	W2   float64
}

// linOffLossTo is lineageLossTo at h = 200 against tg plus the squared
// deviations from tc of the bands' communality (scale 0.05 each) and
// W2K/WK (0.03) at h = 800; the second family's loss against
// lineageTarget and linOffTarget.
func linOffLossTo(f200, f800 shapeFacts, sd float64, tg shapeTarget, tc commTarget) float64 {
	l := lineageLossTo(f200, sd, tg)
	for b, c := range tc.Comm {
		l += (f800.Comm[b] - c) * (f800.Comm[b] - c) / (0.05 * 0.05)
	}
	return l + (f800.W2-tc.W2)*(f800.W2-tc.W2)/(0.03*0.03)
}

// linOffDims is a lineage-with-markers family's shape: cells, genes in
// all (Splatter part and markers), types.
type linOffDims struct{ Cells, Genes, K int }

// linOff12Shape is simlinoff12's shape (the nested families'); linOff16Shape
// mouse_bladder_2100's public one (2,100 cells, 20,670 genes, 16 classes).
var linOff12Shape, linOff16Shape = linOffDims{2500, 4000, 12}, linOffDims{2100, 20670, 16}

// linOffShape is simlin12's lineage design (LinDE 0.4, LinLoc 1.0, Shift
// 1.0) at shape dm with the types' Splatter DE (0.1 at log-normal(0.1,
// 0.4), as the on/off families' background) and a fraction phi of its
// genes on/off markers at log-normal(onLoc, 1) counts per cell at the
// median library, 0.02 of that off their home types, libraries at libLoc,
// its types of shares typeShares(dm.K).
func linOffShape(dm linOffDims, phi, onLoc, libLoc float64, seed uint64) lineageSet {
	return datasets.LinOffShape(dm.Cells, dm.Genes, dm.K, phi, onLoc, libLoc, seed)
}

// linOffMatch runs the second family's matching rule (commit "dppca:
// simlinoff12, its matching rule"): over φ ∈ {0.1, 0.25, 0.5} × on-level
// ∈ {0.5, 1, 2}, the libraries' location solved (three steps, the
// markers' expected share subtracted as TestOnOffMatch does) for a median
// library of 1,000, seed 52, the point of least linOffLossTo is kept (first
// in grid order on a tie). B1 is reported, not calibrated (as for the
// on/off families).
func linOffMatch(t *testing.T) {
	linOffMatchAt(t, linOff12Shape, lineageTarget, linOffTarget, 52)
}

// linOff16Target, linOff16Comm are mouse_bladder_2100's own facts
// (TestShapeFacts, base draw; h = 200: topK 0.417, decay 0.026, part
// 0.573, bi 0.85, libcor +0.50, W2K/WK 0.811, sd of log library 0.72,
// median library 1,600; h = 800: communality 0.439/0.390/0.243/0.153,
// W2K/WK 0.747), the third family's targets.
var (
	linOff16Target = shapeTarget{0.417, 0.026, 0.573, 0.85, 0.50, 0.811, 0.72, 1600}
	linOff16Comm   = commTarget{[4]float64{0.439, 0.390, 0.243, 0.153}, 0.747}
)

// linOff16Match is the third lineage family's matching rule (rule G13's
// optional family, stated before any draw of it): simlinoff12's procedure
// (linOffMatch's grid, lineage parameters, loss and scales) at
// mouse_bladder_2100's shape (linOff16Shape) against its own facts
// (linOff16Target, linOff16Comm), the median library solved for 1,600,
// seed 53 (the family's base draw; no comparison has used it).
func linOff16Match(t *testing.T) {
	linOffMatchAt(t, linOff16Shape, linOff16Target, linOff16Comm, 53)
}

// linOffMatchAt is linOffMatch's procedure at shape dm against tg, tc,
// drawn from seed.
func linOffMatchAt(t *testing.T, dm linOffDims, tg shapeTarget, tc commTarget, seed uint64) {
	best, bestLoss := "", math.Inf(1)
	for _, phi := range []float64{0.1, 0.25, 0.5} {
		for _, on := range []float64{0.5, 1, 2} {
			lib := math.Log(tg.Median)
			mk := phi * float64(dm.Genes) * on * (1 + 0.02*float64(dm.K-1)) / float64(dm.K) * math.Exp(0.5)
			if mk >= tg.Median {
				t.Logf("φ %.2f on %g: markers alone exceed the median library", phi, on)
				continue
			}
			var d *datasets.Dataset
			for range 3 {
				var err error
				d, err = simulateLineage(linOffShape(dm, phi, math.Log(on), lib, seed))
				if err != nil {
					t.Fatal(err)
				}
				m := countFactsOf(d).Median
				lib += math.Log((tg.Median - mk) / max(m-mk, 1))
			}
			// the last draw is at the previous lib: draw at the final one
			d, err := simulateLineage(linOffShape(dm, phi, math.Log(on), lib, seed))
			if err != nil {
				t.Fatal(err)
			}
			f2, f8 := shapeFactsOf(t, d, dm.K, 200), shapeFactsOf(t, d, dm.K, 800)
			sd := logLibSD(d)
			loss := linOffLossTo(f2, f8, sd, tg, tc)
			row := fmt.Sprintf("φ %.2f on %g libLoc %.3f: median %.0f sdlib %.2f | h 200 topK %.3f decay %.3f part %.3f bi %.2f libcor %+.2f W2 %.3f above %d | h 800 comm %.3f %.3f %.3f %.3f W2 %.3f | loss %.1f",
				phi, on, lib, countFactsOf(d).Median, sd, f2.TopK, f2.Decay, f2.Part, f2.Bi, f2.LibCor, f2.W2, f2.Above, f8.Comm[0], f8.Comm[1], f8.Comm[2], f8.Comm[3], f8.W2, loss)
			t.Log(row)
			if loss < bestLoss {
				best, bestLoss = row, loss
			}
		}
	}
	t.Logf("MATCH %s", best)
}
