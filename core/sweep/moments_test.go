package sweep

import (
	"math"
	"testing"
)

// TestMoments checks the mean and the sample sd against hand values, and
// the edge cases MeanSD relies on: one value has sd 0, none has no row.
func TestMoments(t *testing.T) {
	m, sd := Moments([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(sd-math.Sqrt(5.0/3)) > 1e-15 {
		t.Errorf("Moments(1,2,3,4) = %v, %v, want 2.5, %v", m, sd, math.Sqrt(5.0/3))
	}
	if m, sd := Moments([]float64{0.7}); m != 0.7 || sd != 0 {
		t.Errorf("Moments(0.7) = %v, %v, want 0.7, 0", m, sd)
	}
	if m, sd := Moments(nil); !math.IsNaN(m) || !math.IsNaN(sd) {
		t.Errorf("Moments() = %v, %v, want NaN, NaN", m, sd)
	}
	if m, sd := MeanSD(nil); m != nil || sd != nil {
		t.Errorf("MeanSD() = %v, %v, want nil, nil", m, sd)
	}
	if m, sd := MeanSD([]float64{2, 4}); *m != 3 || math.Abs(*sd-math.Sqrt2) > 1e-15 {
		t.Errorf("MeanSD(2,4) = %v, %v, want 3, √2", *m, *sd)
	}
}
