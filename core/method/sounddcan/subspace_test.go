package sounddcan

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/accountant"
	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestSubspaceAccurate: the test reads the (K−1)-th released eigenvalue,
// or the last when fewer were kept, against SubspaceRho times it.
func TestSubspaceAccurate(t *testing.T) {
	eig := []float64{100, 50, 20, 8}
	for _, c := range []struct {
		edge float64
		k    int
		want bool
	}{{5, 4, true}, {5.01, 4, false}, {2, 5, true}, {2.01, 9, false}, {25, 2, true}, {25.1, 2, false}, {0, 1, false}} {
		if got := subspaceAccurate(eig, c.edge, c.k, SubspaceRho); got != c.want {
			t.Errorf("edge %g, K = %d: %v, want %v", c.edge, c.k, got, c.want)
		}
	}
	if !subspaceAccurate(eig, 8, 5, subspaceRho(SubspaceEdge)) || subspaceAccurate(eig, 8.01, 5, subspaceRho(SubspaceEdge)) {
		t.Error("subspace=edge: want the weakest eigenvalue 8 against the edge itself")
	}
}

// TestLeaveNetOutKeepsMu: replacing the network by SubspaceRounds head
// rounds keeps the plan's composed μ exactly, with no DP-SGD mechanism.
func TestLeaveNetOutKeepsMu(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 100, 300, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"stage": "off", "subspace": "test"})
	for _, eps := range []float64{0.5, 8, 64} {
		pl, err := NewPlan(src, true, eps, 1e-5, o, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		before := dppca.ComposedMu(pl.Mechanisms())
		off := pl.leaveNetOut(7)
		after := dppca.ComposedMu(off.Mechanisms())
		if math.Abs(after-before) > 1e-12*before || !off.SubOff || off.Steps != 0 || off.Extra != SubspaceRounds {
			t.Errorf("ε=%g: μ %.15g → %.15g, plan %+v", eps, before, after, off)
		}
		for _, m := range off.Mechanisms() {
			if m.Name == MechSGD {
				t.Errorf("ε=%g: a DP-SGD mechanism %+v after the network was left out", eps, m)
			}
		}
	}
}

// TestSubspaceEngine: on well-separated populations at a large ε the
// subspace test leaves the network out; the ledger then holds no DP-SGD
// step, SubspaceRounds extra rounds of sums and counts, equals the plan's
// composition and meets the target ε; at a small ε the network runs.
func TestSubspaceEngine(t *testing.T) {
	d := fixture.Separated(3, 200, 100, 1)
	for _, c := range []struct {
		eps float64
		off bool
	}{{50, true}, {0.3, false}} {
		e, evs := runTest(t, d, fixture.SoundConfig(c.eps, 2, map[string]string{"stage": "off", "subspace": "test", "steps": "20"}))
		out := e.Outcome()
		if out.Plan.SubOff != c.off {
			t.Fatalf("ε=%g: network left out %v, want %v (eigen %v, edge %g)", c.eps, out.Plan.SubOff, c.off, out.Start.Eigen, out.Start.Plan.Edge())
		}
		l := e.Ledger()
		steps := func(name string) int {
			n := 0
			for _, ev := range l.Events(name) {
				n += ev.Steps
			}
			return n
		}
		wantSGD, wantExtra := 20, 0
		if c.off {
			wantSGD, wantExtra = 0, SubspaceRounds
		}
		if steps(MechSGD) != wantSGD || steps(MechExtraSums) != wantExtra || steps(MechExtraCounts) != wantExtra || len(out.Losses) != wantSGD {
			t.Errorf("ε=%g: ledger %d SGD steps, %d and %d extra rounds, %d losses; want %d, %d", c.eps, steps(MechSGD), steps(MechExtraSums), steps(MechExtraCounts), len(out.Losses), wantSGD, wantExtra)
		}
		mu, err := accountant.GDPMu(l.All())
		if err != nil {
			t.Fatal(err)
		}
		if want := dppca.ComposedMu(out.Plan.Mechanisms()); math.Abs(mu-want) > 1e-9*want || mu > out.Plan.Mu*(1+1e-12) || mu < out.Plan.Mu*(1-1e-6) {
			t.Errorf("ε=%g: ledger μ %.12g, plan's mechanisms %.12g, target μ %.12g", c.eps, mu, want, out.Plan.Mu)
		}
		g, _ := fixture.LastOf[core.GuaranteeEvent](evs)
		if len(g.Audited) == 0 || g.Audited[0].Epsilon > c.eps || g.Audited[0].Epsilon < c.eps-1e-5 {
			t.Errorf("ε=%g: audited %+v", c.eps, g.Audited)
		}
		if c.off && out.NonEmpty != 3 {
			t.Errorf("ε=%g: %d of 3 clusters non-empty with the head's extra rounds on separated data", c.eps, out.NonEmpty)
		}
	}
}

// TestStartDPPCAOptions: start=dppca resolves to dppca's own rules (genes
// and p auto, its 10 rounds and its own over-clustering when the head does
// not merge); over > 1 leaves the merge to the head; bad values are
// errors naming the option.
func TestStartDPPCAOptions(t *testing.T) {
	o := mustParse(t, map[string]string{"start": "dppca"})
	do, err := o.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	if o.Over != 1 || o.Genes != dppca.GenesAuto || o.PRule != dppca.PRuleEdge || do.T != dppca.DefaultT || do.Over != dppca.OverAuto || do.Genes != dppca.GenesAuto {
		t.Errorf("start=dppca: options %v, dppca stage %+v", o, do)
	}
	o = mustParse(t, map[string]string{"start": "dppca", "over": "3", "genes": "100", "p": "5"})
	if do, err = o.dppcaOptions(); err != nil || do.Over != 1 || do.Genes != 100 || do.P != 5 || o.Over != 3 {
		t.Errorf("start=dppca over=3: options %v, dppca stage %+v (%v)", o, do, err)
	}
	if do, _ := mustParse(t, nil).dppcaOptions(); do.T != dppcaStageRounds || do.Over != 1 || do.Genes != dppca.GenesAuto {
		t.Errorf("default start: dppca stage %+v", do)
	}
	for _, kv := range [][2]string{{"start", "x"}, {"subspace", "on"}, {"fill", "on"}, {"hold", "split"}} {
		if _, err := Parse(map[string]string{kv[0]: kv[1]}); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%s=%s: error %v, want one naming the option", kv[0], kv[1], err)
		}
	}
}
