package sounddcan

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/israce"
)

// TestJoinOptions: join reads off (the default, written nowhere) or
// codes; join=codes sets JoinCodes and nothing else; other values and
// join=codes with labels=means are refused.
func TestJoinOptions(t *testing.T) {
	def := mustParse(t, nil)
	if def.JoinCodes || strings.Contains(def.String(), "join=") {
		t.Errorf("the default resolves to join=codes %v (%s)", def.JoinCodes, def)
	}
	if o := mustParse(t, map[string]string{"join": "off"}); !reflect.DeepEqual(o, def) {
		t.Errorf("join=off reads %s, want the default's %s", o, def)
	}
	o := mustParse(t, map[string]string{"join": "codes"})
	if !o.JoinCodes || !strings.Contains(o.String(), "join=codes") {
		t.Errorf("join=codes resolves to %v (%s)", o.JoinCodes, o)
	}
	o.JoinCodes = false
	if !reflect.DeepEqual(o, def) {
		t.Errorf("join=codes changes more than JoinCodes:\n%+v\nwant\n%+v", o, def)
	}
	for _, bad := range []string{"", "Codes", "on", "1", "code", "rows", "dppca"} {
		if _, err := Parse(map[string]string{"join": bad}); err == nil {
			t.Errorf("join=%q accepted", bad)
		}
	}
	if _, err := Parse(map[string]string{"join": "codes", "labels": "means"}); err == nil {
		t.Error("join=codes with labels=means accepted")
	}
}

// TestJoinLabels: on a hand-made mixture (h 3, p 1, basis e₁) the joined
// rows are n × (h+p) with the blocks scaled by √w, the scales are the
// inverse total variances computed by hand (so each scaled block has
// unit total variance), the codes block decides a cell the gene rows
// leave equidistant, and a dropped component labels no cell.
func TestJoinLabels(t *testing.T) {
	v := 0.01
	m := &mixture{k: 2, h: 3, mu: []float64{0, 0, 0, 1, 0.4, 0}, a: []float64{math.Log(0.75), math.Log(0.25)}, b: -0.5 * math.Log(v)}
	basis := []float64{1, 0, 0} // h × p = 3 × 1
	p := 1
	// μ̄ = (0.25, 0.1, 0); TV1 = 0.75·(0.0625+0.01) + 0.25·(0.5625+0.09) + 3v, TV2 = 0.75·0.0625 + 0.25·0.5625 + v
	tv1 := 0.75*(0.0625+0.01) + 0.25*(0.5625+0.09) + 3*v
	tv2 := 0.75*0.0625 + 0.25*0.5625 + v
	w1, w2 := m.joinScales(basis, p)
	if math.Abs(w1*tv1-1) > 1e-12 || math.Abs(w2*tv2-1) > 1e-12 {
		t.Fatalf("joinScales %g, %g; want 1/%g, 1/%g", w1, w2, tv1, tv2)
	}
	x := []float64{0.5, 0.2, 0, 0.5, 0.2, 0, 0.1, 0, 0}
	codes := []float64{0.9, 0.1, 0.1}
	rows := joinRows(x, 3, 3, codes, p, w1, w2)
	if len(rows) != 3*(3+p) {
		t.Fatalf("joinRows has %d values, want 3 × (3+1)", len(rows))
	}
	for i := range 3 {
		for g := range 3 {
			if want := math.Sqrt(w1) * x[i*3+g]; math.Abs(rows[i*4+g]-want) > 1e-15 {
				t.Errorf("row %d gene %d: %g, want %g", i, g, rows[i*4+g], want)
			}
		}
		if want := math.Sqrt(w2) * codes[i]; math.Abs(rows[i*4+3]-want) > 1e-15 {
			t.Errorf("row %d code: %g, want %g", i, rows[i*4+3], want)
		}
	}
	cen := m.joinCentres(basis, p, w1, w2)
	if want := math.Sqrt(w2) * 1; len(cen) != 2*4 || math.Abs(cen[7]-want) > 1e-15 || cen[3] != 0 {
		t.Errorf("joinCentres %v: want the code blocks 0 and √w2·Bᵀμ₁ = %g", cen, want)
	}
	// cells 0 and 1 have the same gene rows, equidistant from both means;
	// their codes decide
	if got := m.joinLabels(x, 3, codes, basis, p); !reflect.DeepEqual(got, []int{1, 0, 0}) {
		t.Errorf("joinLabels %v, want [1 0 0]", got)
	}
	m.drop = []bool{false, true}
	if got := m.joinLabels(x, 3, codes, basis, p); !reflect.DeepEqual(got, []int{0, 0, 0}) {
		t.Errorf("joinLabels with component 1 dropped %v, want [0 0 0]", got)
	}
}

// TestJoinRun: join=codes is post-processing: the same plan, trained
// means and weights as the default; its labels are joinLabels of the
// trained mixture on the run's rows and codes (recomputed here); the null
// (steps=0) is the default's; the ledger is the default's event for event.
func TestJoinRun(t *testing.T) {
	israce.SkipNumerics(t)
	d := fixture.Separated(4, 300, 200, 1)
	src, err := dppca.NewSource(d, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { stepProbe = nil }()
	for _, eps := range []float64{8, 16} {
		def := fitOnce(t, src, true, eps, mustParse(t, nil), 1)
		var last *mixture
		stepProbe = func(_ int, m *mixture) { last = m }
		jc := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"join": "codes"}), 1)
		stepProbe = nil
		if last == nil || len(jc.Losses) == 0 {
			t.Fatalf("ε %g: the network did not run; the test needs its steps", eps)
		}
		if !reflect.DeepEqual(def.Plan, jc.Plan) || !reflect.DeepEqual(def.Centres, jc.Centres) || !reflect.DeepEqual(def.Weights, jc.Weights) {
			t.Fatalf("ε %g: join=codes changed the plan, the trained means or the weights", eps)
		}
		st := jc.Start
		n, p := st.Matrix.N, len(st.Eigen)
		want := last.joinLabels(st.Matrix.Z, n, st.Proj, st.Basis, p)
		if !reflect.DeepEqual(jc.Labels, want) {
			t.Errorf("ε %g: join=codes' labels are not joinLabels of the trained mixture", eps)
		}
		n0 := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"steps": "0"}), 1)
		n1 := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"steps": "0", "join": "codes"}), 1)
		if !reflect.DeepEqual(n0.Labels, n1.Labels) || !reflect.DeepEqual(n0.Plan, n1.Plan) {
			t.Errorf("ε %g: join=codes changed the null", eps)
		}
	}
	checkSameReleases(t, map[string]string{"join": "codes"}, nil)
}
