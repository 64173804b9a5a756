package sounddcan

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestAvgOptions: avg=N reaches the stage as dppca's Avg and HeldAvg and
// changes nothing else of its options; avg=1 is the default; out-of-range
// values are refused; split=F reaches the stage as dppca's Split.
func TestAvgOptions(t *testing.T) {
	def := mustParse(t, nil)
	ddo, err := def.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"avg": "3"})
	if o.Avg != 3 || o.String() == def.String() {
		t.Errorf("avg=3 resolves to %s", o)
	}
	do, err := o.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	if do.Avg != 3 || do.HeldAvg != 3 || ddo.Avg != 0 || ddo.HeldAvg != 0 {
		t.Errorf("avg: the stage's Avg %d, HeldAvg %d (default %d, %d); want 3, 3 (0, 0)", do.Avg, do.HeldAvg, ddo.Avg, ddo.HeldAvg)
	}
	do.Avg, do.HeldAvg = 0, 0
	if !reflect.DeepEqual(do, ddo) {
		t.Errorf("avg=3: the stage's options\n%+v\nwant the default's\n%+v", do, ddo)
	}
	if one := mustParse(t, map[string]string{"avg": "1"}); !reflect.DeepEqual(one, def) {
		t.Errorf("avg=1 resolves to %s, want the default %s", one, def)
	}
	sp := mustParse(t, map[string]string{"split": "0.65"})
	if sdo, err := sp.dppcaOptions(); err != nil || sdo.Split != 0.65 || ddo.Split != dppca.DefaultSplit {
		t.Errorf("split=0.65: the stage's split %v (default %v), err %v", sdo.Split, ddo.Split, err)
	}
	for _, bad := range []map[string]string{{"avg": "0"}, {"avg": "11"}, {"avg": "x"}, {"split": "0.2"}, {"split": "0.9"}, {"split": "x"}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestAvg: under avg=3 the plan is the default's, the run draws the same
// noise (the same releases: the stage's rounds up to the last are the
// default's to the digit), the start's final centres are the mean of its
// last three rounds' released centres (replayed through dppca's held
// release with T = 3, 4, 5 from the same generator state: each is the
// default's release cut after that round), the start's labels are each
// cell's nearest averaged centre, on four separated populations at ε 30
// the null finds them, and the engine's ledger holds exactly the
// default's mechanisms, composing to the target.
func TestAvg(t *testing.T) {
	d := fixture.Separated(4, 250, 200, 3)
	for _, c := range []struct {
		opts map[string]string
		eps  float64
	}{{map[string]string{"avg": "3", "steps": "0"}, 30}, {map[string]string{"avg": "3"}, 4}} {
		v := newVariant(t, d, c.opts, "avg", c.eps)
		o, src := v.o, v.src
		pl, fitRng := v.samePlan()
		out, err := Fit(context.Background(), src, pl, o, fitRng, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		// the default's held release cut after T rounds: its last centres
		k := min(pl.Over*src.K, d.Cells())
		cut := func(T int) []float64 {
			return v.heldRelease(v.def, pl, k, func(do *dppca.Options) { do.T = T })
		}
		c3, c4, c5 := cut(3), cut(4), cut(5)
		want := make([]float64, len(c5))
		for i := range want {
			want[i] = (c3[i] + c4[i] + c5[i]) / 3
		}
		got := out.Start.Centres
		if len(got) != len(want) {
			t.Fatalf("%v: %d centre coordinates, want %d", c.opts, len(got), len(want))
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("%v ε %g: centre coordinate %d is %v, want the mean of the last three rounds' %v", c.opts, c.eps, i, got[i], want[i])
			}
		}
		if reflect.DeepEqual(got, c5) {
			t.Errorf("%v: the start's centres are the last round's, not averaged", c.opts)
		}
		p := len(out.Start.Eigen)
		for i, l := range out.Start.Labels {
			if nn := cluster.Nearest(out.Start.Proj[i*p:(i+1)*p], got, p); nn != l {
				t.Fatalf("%v: cell %d labelled %d, its nearest averaged centre is %d", c.opts, i, l, nn)
			}
		}
		if c.eps == 30 {
			if a, err := cluster.ARI(out.Start.Matrix.Labels, out.Labels); err != nil || a < 0.95 || out.NonEmpty != src.K {
				t.Errorf("%v ε 30: ARI %.3f on four separated populations, %d non-empty; want ≥ 0.95 and %d (err %v)", c.opts, a, out.NonEmpty, src.K, err)
			}
		}
		// the engine's ledger: the default's mechanisms, to the target
		v.checkLedger()
	}
}
