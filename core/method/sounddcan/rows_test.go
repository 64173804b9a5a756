package sounddcan

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// rowsCandidate is sdcan26's candidate 2, the rows rows=auto switches to.
var rowsCandidate = map[string]string{"genes": "alonestart:18", "target": "1000", "offset": "dir"}

// TestRowsOptions: rows=auto:H sets the bound and nothing else; its
// switched options are exactly what Parse gives for genes=alonestart:18
// target=1000 offset=dir; rows=default is the default; bad values and
// rows=auto on top of other row options are refused.
func TestRowsOptions(t *testing.T) {
	def := mustParse(t, nil)
	o := mustParse(t, map[string]string{"rows": "auto:62"})
	if o.RowsBelow != 62 || !strings.Contains(o.String(), "rows=auto:62") {
		t.Fatalf("rows=auto:62 resolves to %s (bound %d)", o, o.RowsBelow)
	}
	back := o
	back.RowsBelow = 0
	if !reflect.DeepEqual(back, def) {
		t.Errorf("rows=auto:62 changes more than its bound:\n%+v\nwant\n%+v", back, def)
	}
	if got, want := o.dppcaRows(), mustParse(t, rowsCandidate); !reflect.DeepEqual(got, want) {
		t.Errorf("rows=auto's switched options\n%+v\nwant genes=alonestart:18 target=1000 offset=dir's\n%+v", got, want)
	}
	if d := mustParse(t, map[string]string{"rows": "default"}); !reflect.DeepEqual(d, def) {
		t.Errorf("rows=default resolves to %s, want the default %s", d, def)
	}
	for _, bad := range []map[string]string{
		{"rows": "auto:50"}, {"rows": "auto:x"}, {"rows": "62"}, {"rows": "auto:1001"},
		{"rows": "auto:62", "offset": "dir"}, {"rows": "auto:62", "target": "1000"},
		{"rows": "auto:62", "genes": "alone:18"}, {"rows": "auto:62", "start": "alone"},
		{"rows": "auto:62", "prep": "public"},
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestRowsAuto: on four separated populations of 1,000 cells, at ε 0.5
// dppca's gene rule from the released count gives 50 genes (< 62), so
// rows=auto:62 switches to dppca's rows; at ε 8 it gives about 90, so it
// does not; rows=auto:1000 switches at ε 8, where the stage's offset
// prediction does not fire and its share returns to the k-means. In each
// case the plan, every σ, the run's ledger (its
// mechanisms as they ran, event for event) and the labels are those of
// the options it chose, run alone with the same seed: sdcan26's
// candidate 2 where it switched, the default where it did not. The
// ledger composes to at most the target and within 1 %, and holds the
// offset's release exactly when the stage made it. The test fails if the
// switch fires in neither case or in both.
func TestRowsAuto(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	src, err := dppca.NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		eps   float64
		bound int
		on    bool
	}{{0.5, 62, true}, {8, 62, false}, {8, 1000, true}} {
		auto := map[string]string{"rows": "auto:" + strconv.Itoa(c.bound)}
		o := mustParse(t, auto)
		ref := map[string]string{}
		if c.on {
			ref = rowsCandidate
		}
		pa, err := NewPlan(src, true, c.eps, 1e-5, o, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		pr, err := NewPlan(src, true, c.eps, 1e-5, mustParse(t, ref), rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if pa.Rows != c.on || pa.RowsH != rowsH(pa.NoisyN, pa.Mu) {
			t.Fatalf("ε %g: rows=auto:%d switched %v at h %d (ñ %.1f), want %v", c.eps, c.bound, pa.Rows, pa.RowsH, pa.NoisyN, c.on)
		}
		if (pa.RowsH < c.bound) != c.on {
			t.Fatalf("ε %g: dppca's rule gives %d genes, and the switch is %v", c.eps, pa.RowsH, pa.Rows)
		}
		pa.Rows, pa.RowsH = false, 0
		if !reflect.DeepEqual(pa, pr) {
			t.Errorf("ε %g: rows=auto's plan\n%+v\nwant %v's\n%+v", c.eps, pa, ref, pr)
		}
		ea, _ := runTest(t, d, fixture.SoundConfig(c.eps, variantSeed, auto))
		er, _ := runTest(t, d, fixture.SoundConfig(c.eps, variantSeed, ref))
		if !reflect.DeepEqual(ea.Ledger().All(), er.Ledger().All()) || !slices.Equal(ea.Ledger().Components(), er.Ledger().Components()) {
			t.Errorf("ε %g: rows=auto's ledger %v\nwant %v's %v", c.eps, ea.Ledger().Components(), ref, er.Ledger().Components())
		}
		_, got := ledgerBudget(t, ea)
		if got > c.eps || got < 0.99*c.eps {
			t.Errorf("ε %g: the ledger composes to ε %.9g, want at most the target and within 1 %%", c.eps, got)
		}
		oa, or := ea.Outcome(), er.Outcome()
		if oa == nil || or == nil {
			t.Fatalf("ε %g: no outcome", c.eps)
		}
		if !slices.Equal(oa.Labels, or.Labels) || oa.Start.Matrix.H != or.Start.Matrix.H || oa.Plan.Target != or.Plan.Target {
			t.Errorf("ε %g: rows=auto's labels, h %d or total %g differ from %v's (h %d, total %g)", c.eps, oa.Start.Matrix.H, oa.Plan.Target, ref, or.Start.Matrix.H, or.Plan.Target)
		}
		has := slices.Contains(ea.Ledger().Components(), dppca.MechOffset)
		if made := oa.Start.Plan.Offset > 0; has != made {
			t.Errorf("ε %g: the ledger holds the offset's release %v, the stage made it %v", c.eps, has, made)
		}
		t.Logf("ε %g, bound %d: dppca's rule %d genes → switched %v; h %d, total %g, offset released %v, ledger ε %.6g in %d events", c.eps, c.bound, rowsH(pr.NoisyN, pr.Mu), c.on, oa.Start.Matrix.H, oa.Plan.Target, has, got, len(ea.Ledger().All()))
	}
}
