package methodtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"

	"github.com/dpscope/dpscope/internal/israce"
)

// fingerprint is every loss and metric a run reported, in order: what the
// noise shapes.
func fingerprint(rec record) string {
	var b strings.Builder
	for _, ev := range rec.events {
		switch ev := ev.(type) {
		case core.StepEvent:
			fmt.Fprintf(&b, "s%d:%x ", ev.Step, ev.Loss)
		case core.MetricsEvent:
			for _, v := range ev.Values {
				fmt.Fprintf(&b, "%s:%x ", v.Name, v.Value)
			}
		}
	}
	return b.String()
}

// reasons returns the reasons of the run's last guarantee.
func reasons(rec record) string {
	last := ""
	for _, ev := range rec.events {
		if g, ok := ev.(core.GuaranteeEvent); ok {
			last = strings.Join(g.Reasons, "\n")
		}
	}
	return last
}

// TestSecureNoiseIsHonoured is issue 14 point 8: with SecureNoise two runs
// of the same seed draw different noise (dpmd used to ignore the flag and
// repeat its stream), and the guarantee says where the noise comes from,
// naming --secure-noise when it follows the seed.
func TestSecureNoiseIsHonoured(t *testing.T) {
	israce.SkipNumerics(t)
	for _, v := range variants(2) {
		t.Run(v.name, func(t *testing.T) {
			// The seeded run's reasons are checked by TestTargetRunsReachTheirPlan.
			cfg := v.cfg
			cfg.SecureNoise = true
			a, b := follow(t, cfg, nil), follow(t, cfg, nil)
			if a.err != nil || b.err != nil {
				t.Fatalf("secure runs failed: %v, %v", a.err, b.err)
			}
			fa, fb := fingerprint(a), fingerprint(b)
			if fa == "" || fa == fb {
				t.Errorf("two runs with secure noise reported the same stream (%d bytes): the flag is ignored", len(fa))
			}
			if why := reasons(a); !strings.Contains(why, "cannot be reproduced from the seed") {
				t.Errorf("secure run's guarantee reasons do not state the noise source:\n%s", why)
			}
		})
	}
}
