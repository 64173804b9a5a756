package core

// The settings every face of dpscope starts from — the interface's Run
// screen and `dpscope run` and `sweep` without flags — listed once, here,
// so they cannot drift apart (issue 19.8; README, "Defaults"). The method
// and its mode are the registered default entry (DefaultEntry).
//
// Where the faces used to differ, the rule was fixed before any figure was
// looked at: a setting a method documents a default for takes the method's
// (it is what a run without the setting does anyway); any other takes the
// more private of the two values, since a default is what a user gets
// without choosing. So ε 4 (the interface had 4, `run` 8) and epochs
// 20 + 20 (DP-DCAN's own, which `run` used; the interface had 10 + 10).
const (
	DefaultEpsilon    = 4    // target ε
	DefaultDelta      = 1e-5 // δ
	DefaultClip       = 0.1  // clipping bound C
	DefaultSampleRate = 0.1  // Poisson sampling rate q
	DefaultSeed       = 1
	DefaultAccountant = "rdp"
)

// DefaultEpochs are a DP-SGD method's epochs of stage 1 and stage 2 when
// none are given: DP-DCAN's, which its package documents (on the default
// data set stage 1 stops improving after about 20 epochs, stage 2 gains
// until about its 20th). A method of another family reads its own
// schedule: `run` then leaves Config.Epochs empty.
var DefaultEpochs = [2]int{20, 20}

// DefaultConfig is the run a face starts from: the default entry's method
// and mode on data with the defaults above. Epochs stay empty (each
// method's own) and the layers are the face's: the interface's layer strip
// starts at the paper's 1-3, `run` at the whole network 1-6, which sound
// whole-network DP-SGD needs for its guarantee.
func DefaultConfig(data string) Config {
	cfg := Config{
		Data: data, Mode: ModeSound, Epsilon: DefaultEpsilon, Delta: DefaultDelta,
		Clip: DefaultClip, SampleRate: DefaultSampleRate, Accountant: DefaultAccountant, Seed: DefaultSeed,
	}
	if m, p, ok := DefaultEntry(); ok {
		cfg.Method, cfg.Mode = m.Name, p.Mode
	}
	return cfg
}
