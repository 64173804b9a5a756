package dppca

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/sweep"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/fixture/baseline"
)

// nestSet is a simulation whose labelled types are made of subtypes of
// unequal size (issue 16.5, twelfth attempt): each type is a parent group
// and one or two child groups (datasets.GroupConfig.Parent: a child
// inherits its parent's DE factors and adds its own), and every cell of a
// child carries its parent's label. The labelled types are then wider and
// more unequal in spread than a Splatter type, as a real cell type made of
// states or subtypes is. Subs lists, per type, the shares of its cells in
// the parent and each child (summing to 1).
type nestSet struct {
	Types datasets.SimConfig // one group per labelled type: size and DE
	Subs  [][]float64        // per type: the parent's share, then each child's
	// SubDE is the children's DE probability (their own DE on top of the
	// parent's; DE location and scale are the type's).
	SubDE float64
}

// nestSets are the nested simulations, their parameters fixed before any
// variant was measured on them (commit "dppca: nested simulations"):
//
//   - simnest8: 3,000 cells, 4,000 genes, 8 types of shares 0.26, 0.18,
//     0.14, 0.12, 0.10, 0.08, 0.07, 0.05 (the largest as mouse_bladder's
//     largest cluster without noise, 26 %, a label-free shape); the three
//     largest types of three subtypes (0.5/0.3/0.2 of the type), the
//     other five of two (0.65/0.35);
//   - simnest14: 2,500 cells, 4,000 genes, 14 types of shares 1/(g+2)
//     (sim14's profile), the seven largest of two subtypes (0.6/0.4), the
//     rest single.
//
// Children have half their type's DE probability at the type's DE factor
// distribution (Splatter's log-normal(0.1, 0.4)), so a subtype lies about
// 1/√2 of a type's distance from its parent. Dropout as simSets'. The one
// free parameter, the types' DE probability, was set for B1 (scanpy + PCA
// 50 + k-means, seeds 0–4 on the base draws) in [0.5, 0.7], about
// mouse_bladder_2100's 0.6: the first of nestDEs that lands there
// (TestNestB1's log, nestDE). A first try varied the DE location at
// probability 0.1 (0.1, 0.2, 0.3, 0.5): simnest14 gave B1 0.50 at 0.1,
// simnest8 0.86–0.99 at all four, above the range. By probability:
// simnest14 0.504 ± 0.025 at 0.1; simnest8 0.856/0.489/0.274/0.098 at
// 0.1/0.07/0.05/0.035, none in range, so the bracket (0.07, 0.1) was
// halved: 0.085 gave 0.809, 0.0775 gave 0.667 ± 0.031, kept.
func nestSets() map[string]nestSet {
	mk := func(cells, genes int, probs []float64, subs [][]float64, seed uint64) nestSet {
		c := datasets.DefaultSimConfig(cells, genes, len(probs))
		for g, p := range probs {
			c.Groups[g].Prob, c.Groups[g].DEProb = p, nestDE[len(probs)]
		}
		c.Dropout, c.DropoutMid, c.DropoutShape = true, -1, -1.5
		c.Seed = seed
		return nestSet{Types: c, Subs: subs, SubDE: nestDE[len(probs)] / 2}
	}
	k8 := []float64{0.26, 0.18, 0.14, 0.12, 0.10, 0.08, 0.07, 0.05}
	s8 := make([][]float64, 8)
	for g := range s8 {
		s8[g] = []float64{0.65, 0.35}
		if g < 3 {
			s8[g] = []float64{0.5, 0.3, 0.2}
		}
	}
	k14 := make([]float64, 14)
	s14 := make([][]float64, 14)
	for g := range k14 {
		k14[g] = 1 / float64(g+2)
		s14[g] = []float64{1}
		if g < 7 {
			s14[g] = []float64{0.6, 0.4}
		}
	}
	return map[string]nestSet{
		"simnest8":  mk(3000, 4000, k8, s8, 31),
		"simnest14": mk(2500, 4000, k14, s14, 32),
	}
}

// nestDE is the types' DE probability of each nested family by its number
// of types (nestSets: set for B1 in [0.5, 0.7]).
var nestDE = map[int]float64{8: 0.0775, 14: 0.1}

// simulateNest draws a nestSet: the types' groups split into parent and
// children by Subs, simulated together, each child's cells relabelled to
// its type.
func simulateNest(s nestSet) (*datasets.Dataset, error) {
	c := s.Types
	k := len(c.Groups)
	groups := make([]datasets.GroupConfig, k)
	owner := make([]int, k) // each group's labelled type
	for g, gr := range c.Groups {
		groups[g] = gr
		groups[g].Prob = gr.Prob * s.Subs[g][0]
		owner[g] = g
	}
	for g, gr := range c.Groups {
		for _, share := range s.Subs[g][1:] {
			child := gr
			child.Prob = gr.Prob * share
			child.DEProb = s.SubDE
			child.Parent = g + 1
			groups = append(groups, child)
			owner = append(owner, g)
		}
	}
	c.Groups = groups
	d, _, err := datasets.Simulate(c)
	if err != nil {
		return nil, err
	}
	for i, l := range d.Labels {
		d.Labels[i] = owner[l]
	}
	d.Classes = d.Classes[:k]
	return d, nil
}

// TestSimulateNest: a nested draw has the types' number of labels, every
// child's cells under its parent's label, and the types' shares (the
// parent and its children together) within sampling error of the
// configured ones.
func TestSimulateNest(t *testing.T) {
	s := nestSets()["simnest8"]
	s.Types.Cells, s.Types.Genes = 2000, 500
	d, err := simulateNest(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Classes) != 8 {
		t.Fatalf("%d classes, want 8", len(d.Classes))
	}
	n := make([]float64, 8)
	for _, l := range d.Labels {
		if l < 0 || l >= 8 {
			t.Fatalf("label %d outside the 8 types", l)
		}
		n[l]++
	}
	var tot float64
	for _, g := range s.Types.Groups {
		tot += g.Prob
	}
	for g, gr := range s.Types.Groups {
		want := gr.Prob / tot
		got := n[g] / float64(len(d.Labels))
		if se := math.Sqrt(want * (1 - want) / float64(len(d.Labels))); math.Abs(got-want) > 4*se {
			t.Errorf("type %d: share %.3f, want %.3f ± %.3f", g, got, want, 4*se)
		}
	}
}

// nestDEs are the types' DE probabilities TestNestB1 tries, in order.
var nestDEs = []float64{0.1, 0.07, 0.05, 0.035}

// TestNestB1 logs B1 (seeds 0–4, base draws) of each nested family at each
// DE probability of nestDEs and the first whose mean B1 lies in [0.5, 0.7]:
// how nestDE was set, before any variant was measured on the
// families. Long: DPSCOPE_DPPCA_NESTB1=1 (or a comma list of families);
// DPSCOPE_DPPCA_NESTDE=p,p,… other probabilities (a bracket's midpoint).
func TestNestB1(t *testing.T) {
	if os.Getenv("DPSCOPE_DPPCA_NESTB1") == "" {
		t.Skip("long: set DPSCOPE_DPPCA_NESTB1=1 to set the nested families' DE probability")
	}
	names := []string{"simnest8", "simnest14"}
	if v := os.Getenv("DPSCOPE_DPPCA_NESTB1"); v != "1" {
		names = strings.Split(v, ",")
	}
	for _, name := range names {
		chosen := math.NaN()
		for _, loc := range fixture.EnvFloats(t, "DPSCOPE_DPPCA_NESTDE", nestDEs) {
			s := nestSets()[name]
			for g := range s.Types.Groups {
				s.Types.Groups[g].DEProb = loc
			}
			s.SubDE = loc / 2
			d, err := simulateNest(s)
			if err != nil {
				t.Fatal(err)
			}
			var b []float64
			for seed := range uint64(5) {
				b = append(b, baseline.B1(t, d, seed))
			}
			m, sd := sweep.Moments(b)
			t.Logf("%-9s DE prob %.3f: B1 %.3f±%.3f", name, loc, m, sd)
			if m >= 0.5 && m <= 0.7 && math.IsNaN(chosen) {
				chosen = loc
			}
		}
		t.Logf("%-9s chosen DE prob %v", name, chosen)
	}
}
