package dpmd

import "testing"

func TestParamsSetOptions(t *testing.T) {
	var p Params
	if err := p.set(map[string]string{"manifold": "sphere", "D": "20", "h": "0.5", "noise": "gauss"}, "option"); err != nil {
		t.Fatal(err)
	}
	if p.Manifold != "sphere" || p.D != 20 || p.H != 0.5 || !p.Gaussian {
		t.Errorf("set = %+v", p)
	}
	for _, bad := range []map[string]string{{"DD": "3"}, {"D": "x"}, {"h": "wide"}, {"noise": "pink"}} {
		var q Params
		if err := q.set(bad, "option"); err == nil {
			t.Errorf("set(%v) = nil, want an error", bad)
		}
	}
}
