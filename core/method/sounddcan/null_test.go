package sounddcan

import (
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestNullRun: the registered null is the same configuration with
// steps=0 (no DP-SGD step, the same ε), it leaves the caller's options
// alone, it parses to a run without training, and in sound mode it follows
// ε (a private run at each ε, never one line across them).
func TestNullRun(t *testing.T) {
	m, err := core.LookupMethod(MethodName)
	if err != nil || m.Null == nil {
		t.Fatalf("%s registers no null (err %v)", MethodName, err)
	}
	cfg := core.Config{Data: "builtin:default", Method: MethodName, Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Options: map[string]string{"genes": "200"}}
	n := m.Null(cfg)
	if n.Options["steps"] != "0" || n.Options["genes"] != "200" || n.Epsilon != 4 || n.Mode != core.ModeSound {
		t.Errorf("null config %+v", n)
	}
	if _, set := cfg.Options["steps"]; set {
		t.Error("Null wrote into the run's own options")
	}
	o, err := Parse(n.Options)
	if err != nil || !o.NoTrain {
		t.Errorf("the null's options parse to NoTrain %v (err %v)", o.NoTrain, err)
	}
	if !m.NullFollowsEpsilon(cfg) {
		t.Error("a sound null must follow ε")
	}
	cfg.Mode, cfg.Epsilon = core.ModeNonPrivate, 0
	if m.NullFollowsEpsilon(cfg) {
		t.Error("the no-noise run's null is non-private: one line")
	}
}
