package core

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestAuditSpecValidate(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		spec    AuditSpec
		wantErr bool
	}{
		{"defaults", AuditSpec{}, false},
		{"normal", AuditSpec{Canaries: 500, Confidence: 0.99}, false},
		{"negative canaries", AuditSpec{Canaries: -1}, true},
		{"too many canaries", AuditSpec{Canaries: 1_000_001}, true},
		{"confidence 1", AuditSpec{Confidence: 1}, true},
		{"confidence negative", AuditSpec{Confidence: -0.5}, true},
		{"confidence NaN", AuditSpec{Confidence: math.NaN()}, true},
		{"confidence Inf", AuditSpec{Confidence: math.Inf(1)}, true},
		{"kind input", AuditSpec{Kind: AuditInput}, false},
		{"kind gradient", AuditSpec{Kind: AuditGradient}, false},
		{"kind unknown", AuditSpec{Kind: "output"}, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			err := tc.spec.Validate()
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrBadConfig)) {
				t.Errorf("AuditSpec%+v.Validate() = %v, want error %v wrapping ErrBadConfig", tc.spec, err, tc.wantErr)
			}
		})
	}
	if r := (AuditSpec{}).Resolved(); r.Canaries != DefaultAuditCanaries || r.Confidence != DefaultAuditConfidence || r.Kind != AuditGradient || r.Input() {
		t.Errorf("AuditSpec{}.Resolved() = %+v, want the defaults", r)
	}
}

func TestAuditSpecCanariesFor(t *testing.T) {
	for _, tc := range []struct {
		canaries, available, want int
		wantErr                   bool
	}{
		{0, 5000, DefaultAuditCanaries, false},
		{0, 405, 405, false},
		{300, 405, 300, false},
		{500, 405, 0, true},
	} {
		got, err := AuditSpec{Canaries: tc.canaries}.CanariesFor(tc.available)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("AuditSpec{Canaries: %d}.CanariesFor(%d) = %d, %v; want %d, error %v", tc.canaries, tc.available, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestStartRefusesAuditOfUnauditableMethod: a method without Method.Audit
// cannot silently ignore Config.Audit.
func TestStartRefusesAuditOfUnauditableMethod(t *testing.T) {
	cfg := testConfig()
	cfg.Audit = &AuditSpec{}
	_, err := Start(context.Background(), cfg)
	if !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), "cannot be audited") {
		t.Errorf("Start(%s with an audit) error = %v, want ErrBadConfig saying it cannot be audited", cfg.Method, err)
	}
}
