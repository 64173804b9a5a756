package sounddcan

import (
	"errors"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestCheckDataK: k above the cells is refused before the run as one
// OptionError naming option k (the start's dppca.CheckK), and the default
// k (the classes) passes.
func TestCheckDataK(t *testing.T) {
	cfg := core.Config{Data: "builtin:default", Method: MethodName, Mode: core.ModeSound, Epsilon: 1, Delta: 1e-5,
		Options: map[string]string{"k": "100000"}}
	err := core.CheckData(cfg)
	var oe *core.OptionError
	if err == nil || err.Error() != "option k=100000: k must be ≤ the 2000 cells of builtin:default" || !errors.As(err, &oe) {
		t.Errorf("CheckData = %v, want one OptionError naming k=100000", err)
	}
	cfg.Options = nil
	if err := core.CheckData(cfg); err != nil {
		t.Errorf("default k: %v", err)
	}
}
