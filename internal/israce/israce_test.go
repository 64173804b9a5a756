package israce

import "testing"

// TestSkipNumerics: the test is skipped exactly when the build has -race.
func TestSkipNumerics(t *testing.T) {
	ran := false
	t.Run("numerics", func(t *testing.T) {
		SkipNumerics(t)
		ran = true
	})
	if ran == Enabled {
		t.Errorf("Enabled %v, but the test ran: %v", Enabled, ran)
	}
}
