package core

import "testing"

// TestNullFollowsEpsilon: a null run that is itself private at the run's ε
// follows ε; a non-private null (an untrained model) and no null do not.
func TestNullFollowsEpsilon(t *testing.T) {
	cfg := Config{Method: "m", Mode: ModeSound, Epsilon: 4, Delta: 1e-5}
	for _, tc := range []struct {
		name string
		null func(Config) Config
		want bool
	}{
		{"no null", nil, false},
		{"untrained, no noise", func(c Config) Config { c.Mode, c.Epsilon = ModeNonPrivate, 0; return c }, false},
		{"the same pipeline at ε", func(c Config) Config { c.Options = map[string]string{"steps": "0"}; return c }, true},
	} {
		if got := (Method{Name: "m", Null: tc.null}).NullFollowsEpsilon(cfg); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
