package sounddcan

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/israce"
)

// TestRefillOptions: refill reads off (the default, written nowhere),
// split (DefaultRefillScale) or split:F with F in (0, 1]; other values
// are refused.
func TestRefillOptions(t *testing.T) {
	def := mustParse(t, nil)
	if def.Refill || strings.Contains(def.String(), "refill") {
		t.Errorf("the default resolves to refill %v (%s)", def.Refill, def)
	}
	if o := mustParse(t, map[string]string{"refill": "off"}); o.String() != def.String() {
		t.Errorf("refill=off reads %s, want the default's", o)
	}
	if o := mustParse(t, map[string]string{"refill": "split"}); !o.Refill || o.RefillScale != DefaultRefillScale || !strings.Contains(o.String(), "refill=split:0.05") {
		t.Errorf("refill=split resolves to %v %g (%s)", o.Refill, o.RefillScale, o)
	}
	if o := mustParse(t, map[string]string{"refill": "split:0.2"}); o.RefillScale != 0.2 {
		t.Errorf("refill=split:0.2 resolves to scale %g", o.RefillScale)
	}
	for _, bad := range []string{"", "on", "split:0", "split:1.5", "split:x", "off:0.1", "SPLIT"} {
		if _, err := Parse(map[string]string{"refill": bad}); err == nil {
			t.Errorf("refill=%q accepted", bad)
		}
	}
}

// TestRefillSplit: every component with no released weight takes half of
// the heaviest populated one's weight and sits at its mean plus d, that
// one at its mean minus d, ‖d‖ = scale·√(h·v) in the basis' span; the
// other components are untouched and π still sums to 1.
func TestRefillSplit(t *testing.T) {
	k, h, p := 4, 6, 2
	basis := make([]float64, h*p) // columns e_0 and e_1
	basis[0*p+0], basis[1*p+1] = 1, 1
	mu := []float64{
		1, 0, 0, 0, 0, 0,
		0, 1, 0, 0, 0, 0,
		9, 9, 9, 9, 9, 9,
		0, 0, 1, 0, 0, 0,
	}
	w := []float64{300, 100, 0, 0} // components 2 and 3 hold no weight
	m := &mixture{k: k, h: h, mu: append([]float64(nil), mu...), a: []float64{math.Log(0.6), math.Log(0.2), math.Log(0.1), math.Log(0.1)}, b: 0.5 * math.Log(1/1.5)}
	if got := m.refill(w, basis, p, 0.1); got != 2 {
		t.Fatalf("refill split %d components, want 2", got)
	}
	lp := make([]float64, k)
	m.logWeights(lp)
	var tot float64
	for _, v := range lp {
		tot += math.Exp(v)
	}
	if math.Abs(tot-1) > 1e-12 {
		t.Errorf("π sums to %g", tot)
	}
	// the heaviest (0, weight 0.6) splits into 2 (0.3 each); then the
	// heaviest of the populated is 0 or 2 (0.3): 0 by order, into 3
	want := map[int]float64{0: 0.15, 1: 0.2, 2: 0.3, 3: 0.15}
	for j, v := range want {
		if got := math.Exp(m.a[j]) / (0.6 + 0.2 + 0.1 + 0.1); math.Abs(got-v) > 1e-9 {
			t.Errorf("π_%d = %.4f, want %.4f", j, got, v)
		}
	}
	if !reflect.DeepEqual(m.mu[h:2*h], mu[h:2*h]) {
		t.Errorf("component 1 moved: %v", m.mu[h:2*h])
	}
	sd := math.Sqrt(float64(h) * 1.5)
	var centre [6]float64 // the mean of 0, 2 and 3 weighted by their shares is 0's start
	for _, j := range []int{0, 2, 3} {
		for g := range h {
			centre[g] += want[j] / 0.6 * m.mu[j*h+g]
		}
		for g := 2; g < h; g++ {
			if m.mu[j*h+g] != mu[g] {
				t.Errorf("component %d left the basis' span at gene %d: %g", j, g, m.mu[j*h+g])
			}
		}
	}
	for g := range h {
		if math.Abs(centre[g]-mu[g]) > 1e-12 {
			t.Errorf("the split moved the heaviest's centre of mass at gene %d: %g, want %g", g, centre[g], mu[g])
		}
	}
	d := 0.0
	for g := range h {
		e := m.mu[3*h+g] - m.mu[0*h+g]
		d += e * e
	}
	if math.Abs(math.Sqrt(d)-2*0.1*sd) > 1e-9 {
		t.Errorf("the second split's halves are %.6f apart, want 2·0.1·√(hv) = %.6f", math.Sqrt(d), 2*0.1*sd)
	}
	if got := (&mixture{k: 2, h: h, mu: make([]float64, 2*h), a: []float64{0, 0}}).refill([]float64{0, 0}, basis, p, 0.1); got != 0 {
		t.Errorf("with no weight released anywhere refill split %d components, want 0", got)
	}
}

// TestRefillRun: refill=split leaves the plan (so every noise and the
// ledger) and the null (steps=0) as they are; on a start that leaves
// components without released weight, it starts every component with
// cells, where the default's start does not.
func TestRefillRun(t *testing.T) {
	israce.SkipNumerics(t)
	src := separatedSource(t) // four populations, K = 8
	for _, eps := range []float64{8, 64} {
		for s := range uint64(3) {
			def := fitOnce(t, src, true, eps, mustParse(t, nil), s)
			rf := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"refill": "split"}), s)
			if !reflect.DeepEqual(def.Plan, rf.Plan) {
				t.Fatalf("ε %g seed %d: refill=split changed the plan", eps, s)
			}
			n0 := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"steps": "0"}), s)
			n1 := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"steps": "0", "refill": "split"}), s)
			if !reflect.DeepEqual(n0.Labels, n1.Labels) {
				t.Fatalf("ε %g seed %d: refill=split changed the null's labels", eps, s)
			}
			zero := 0
			for _, v := range def.StartWeights {
				if v <= 0 {
					zero++
				}
			}
			ds, rs := map[int]bool{}, map[int]bool{}
			for i := range def.StartLabels {
				ds[def.StartLabels[i]], rs[rf.StartLabels[i]] = true, true
			}
			t.Logf("ε %g seed %d: %d components without weight; start non-empty %d → %d; end %d → %d", eps, s, zero, len(ds), len(rs), def.NonEmpty, rf.NonEmpty)
			if len(def.Losses) > 0 && zero > 0 && len(rs) <= len(ds) {
				t.Errorf("ε %g seed %d: refill=split starts %d components with cells, the default %d (%d without weight)", eps, s, len(rs), len(ds), zero)
			}
		}
	}
}
