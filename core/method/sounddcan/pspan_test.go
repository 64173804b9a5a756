package sounddcan

import (
	"errors"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestParsePSpan: p=span parses to the fixed rule with floor 10 and
// resolves by K as max(10, K − 1) within dppca's cap 30, never above a
// fixed h; applying it twice gives the same p; without span, K changes
// nothing; the hand-off (dppca's own p rule) drops it.
func TestParsePSpan(t *testing.T) {
	o := mustParse(t, map[string]string{"p": "span"})
	if !o.PSpan || o.P != dppca.DefaultP || o.PRule != dppca.PRuleFixed || !strings.Contains(o.String(), "p=span(≥10) ") {
		t.Fatalf("p=span gives PSpan %v, P %d, rule %q, %q", o.PSpan, o.P, o.PRule, o.String())
	}
	for _, c := range []struct{ k, want int }{{2, 10}, {8, 10}, {11, 10}, {12, 11}, {16, 15}, {31, 30}, {100, 30}} {
		got := o.forK(c.k)
		if got.P != c.want {
			t.Errorf("K = %d: p = %d, want %d", c.k, got.P, c.want)
		}
		if again := got.forK(c.k); again.P != got.P {
			t.Errorf("K = %d: forK twice gives p = %d, then %d", c.k, got.P, again.P)
		}
	}
	fixed := mustParse(t, map[string]string{"p": "span", "genes": "12"})
	if got := fixed.forK(16).P; got != 12 {
		t.Errorf("genes=12, K = 16: p = %d, want 12 (at most h)", got)
	}
	plain := mustParse(t, map[string]string{"p": "10"})
	if got := plain.forK(16).P; got != 10 || plain.PSpan {
		t.Errorf("p=10, K = 16: p = %d (span %v), want 10", got, plain.PSpan)
	}
	if h := o.handoff(); h.PSpan || h.Validate() != nil {
		t.Errorf("handoff keeps span %v (validate: %v)", h.PSpan, h.Validate())
	}
	bad := o
	bad.PRule = dppca.PRuleEdge
	if err := bad.Validate(); err == nil || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "span") {
		t.Errorf("span with the edge rule validates (%v)", err)
	}
	for _, v := range []string{"spans", "Span", "span:3", ""} {
		if _, err := Parse(map[string]string{"p": v}); err == nil || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "p") {
			t.Errorf("p=%q: error %v, want an ErrOptions naming p", v, err)
		}
	}
}

// TestFitPSpan: on 16 separated populations a run under p=span releases
// 15 eigenvalues and codes of width 15, under p=10 ten; on 8 populations
// both runs are the same to the label.
func TestFitPSpan(t *testing.T) {
	run := func(k int, p string) *Outcome {
		src, err := dppca.NewSource(fixture.Separated(k, 40, 300, 3), 0)
		if err != nil {
			t.Fatal(err)
		}
		return fitOnce(t, src, true, 8, mustParse(t, map[string]string{"p": p, "genes": "200", "steps": "5"}), 1)
	}
	for _, c := range []struct {
		p    string
		want int
	}{{"span", 15}, {"10", 10}} {
		out := run(16, c.p)
		if len(out.Start.Eigen) != c.want || len(out.Codes) != c.want*len(out.Labels) {
			t.Errorf("K = 16, p=%s: %d eigenvalues, code width %d, want %d", c.p, len(out.Start.Eigen), len(out.Codes)/len(out.Labels), c.want)
		}
	}
	a, b := run(8, "span"), run(8, "10")
	if len(a.Start.Eigen) != 10 || len(b.Start.Eigen) != 10 {
		t.Fatalf("K = 8: %d and %d eigenvalues, want 10", len(a.Start.Eigen), len(b.Start.Eigen))
	}
	for i := range a.Labels {
		if a.Labels[i] != b.Labels[i] {
			t.Fatalf("K = 8: p=span and p=10 differ at cell %d (%d, %d)", i, a.Labels[i], b.Labels[i])
		}
	}
}
