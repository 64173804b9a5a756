package core

import (
	"fmt"
	"slices"
)

// Family is the kind of engine behind a method. The faces group their
// controls by family (a DP-SGD run has layers and a sampling rate, a
// federated one clients and rounds) and never by method name.
type Family string

// The engine families.
const (
	FamilyDPSGD      Family = "dp-sgd"     // DP-SGD on a network: layers, q, epochs per stage
	FamilyFederated  Family = "federated"  // rounds over clients
	FamilyDenoising  Family = "denoising"  // iterations over query points
	FamilyClustering Family = "clustering" // a one-shot private pipeline
)

// Needs says which shared Config fields a method reads beyond Data, Method,
// Mode, Epsilon, Delta and Seed. The faces show a control only for a field
// the method needs, and `dpscope methods` lists them.
type Needs uint

// The shared fields a method may need.
const (
	NeedsClip         Needs = 1 << iota // Clip, the clipping bound C
	NeedsSampleRate                     // SampleRate, Poisson q of a step
	NeedsLayers                         // Layers, the noised layer range
	NeedsClients                        // Clients
	NeedsSigma                          // Sigma, a noise multiplier σ
	NeedsEpochs                         // Epochs (epochs per stage, or rounds and local epochs)
	NeedsLearningRate                   // LearningRate
	NeedsAccountant                     // Accountant, the one enforcing the target
	NeedsNothing      Needs = 0
)

var needNames = []string{"clip", "sample_rate", "layers", "clients", "sigma", "epochs", "learning_rate", "accountant"}

// Has reports whether n includes every field of f.
func (n Needs) Has(f Needs) bool { return n&f == f }

// Names returns the Config field names (JSON spelling) n includes.
func (n Needs) Names() []string {
	var out []string
	for i, name := range needNames {
		if n&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// Preset is one entry of a method list: a mode with a fixed setting, such
// as DPE-DCAN (DP-DCAN's paper mode with every layer noised). Options
// preset the method's own settings for a quick interactive run.
type Preset struct {
	Label  string      `json:"label"`
	Mode   Mode        `json:"mode"`
	Layers *LayerRange `json:"layers,omitempty"`
	// Clients, Epochs and Clip start a quick run's shared fields (zero or
	// nil: the face's own default).
	Clients int     `json:"clients,omitempty"`
	Epochs  []int   `json:"epochs,omitempty"`
	Clip    float64 `json:"clip,omitempty"`
	// Options preset the method's own settings.
	Options map[string]string `json:"options,omitempty"`
	// Default marks the entry the faces start from: the interface's first
	// screen and `dpscope run` without --method. Its method package states
	// the rule that made it the default.
	Default bool `json:"default,omitempty"`
}

// Method describes a method: everything a face needs to offer, configure
// and explain it without knowing it by name. A method package registers
// one with Register from an init function.
type Method struct {
	// Name is the registered name, Config.Method. Required.
	Name string `json:"name"`
	// Title is a display name, e.g. "DP-DCAN"; Name when empty.
	Title string `json:"title"`
	// Doc is one line on what the method does.
	Doc string `json:"doc,omitempty"`
	// Family decides how the faces group its controls. Required.
	Family Family `json:"family"`
	// Modes are the modes it accepts, in the order a list offers them.
	// Empty: nonprivate, paper and sound.
	Modes []Mode `json:"modes"`
	// Presets are its entries in a method list; empty: one per mode,
	// labelled "Title mode".
	Presets []Preset `json:"presets,omitempty"`
	// Needs are the shared Config fields it reads.
	Needs Needs `json:"-"`
	// Options are its own settings, Config.Options and Patch.Options.
	Options []OptionSpec `json:"options"`
	// Expect returns the guarantee a config will carry and its reasons,
	// before the run (the engine states the final one). Nil: the faces say
	// nothing until the engine does.
	Expect func(Config) (Guarantee, []string) `json:"-"`
	// Calibrate previews a config's noise before the run, as the engine
	// will set it (every mechanism of its plan, its accountant and order
	// list): with Config.Sigma > 0 the ε that σ projects at the end of the
	// plan, otherwise the σ solved for Config.Epsilon and its ε. The faces
	// call it instead of solving σ themselves; it may take tens of
	// milliseconds. Nil: the method offers no preview.
	Calibrate func(Config) (Calibration, error) `json:"-"`
	// DependsOn names what the guarantee depends on besides the mode:
	// Config fields (JSON names), options ("option protocol") or events of
	// the run ("a target raised mid-run").
	DependsOn []string `json:"guarantee_depends_on,omitempty"`
	// Null returns the config of the method's null run: what it gives
	// without learning from the data (DCAN: its untrained network with the
	// same clustering step), drawn as a reference line beside its results.
	// Nil: the method has no informative null (dppca's is a random
	// projection, ARI ≈ 0; B1 is its reference).
	Null func(Config) Config `json:"-"`
	// SeedCheck says the method's runs take seconds, so the faces also run
	// a private run's settings at the null's seeds (reference.Cache.Self)
	// and judge it against its null seed by seed, as "beyond seed noise" is
	// defined. False for methods whose runs take minutes: their verdict is
	// the one-run approximation (reference.RunVerdict).
	SeedCheck bool `json:"seed_check,omitempty"`
	// NullLabel says in a few words what the null run is, for legends
	// ("queries not denoised"); empty: "untrained, no learning".
	NullLabel string `json:"null_label,omitempty"`
	// Baseline marks the private baseline every method's curve is drawn
	// against (dppca): the faces sweep its sound mode beside the method's.
	Baseline bool `json:"baseline,omitempty"`
	// Audit says, in words, how the method runs an empirical privacy
	// audit (Config.Audit: which canaries, what the attacker sees). Empty:
	// the method cannot be audited and Start refuses a Config.Audit.
	Audit string `json:"audit,omitempty"`
	// InputAudit says, in words, how the method runs an audit with input
	// canaries (AuditSpec.Kind = AuditInput). Empty: it has none and Start
	// refuses such a Config.Audit.
	InputAudit string `json:"input_audit,omitempty"`
	// CheckData checks a valid config against its data before a run
	// starts: option values that only the data can refuse, such as k
	// larger than the cells. It loads the data through the data cache
	// (Config.LoadRaw or LoadData), so the run's own load costs nothing
	// more, and leaves load errors to the run. An option to blame is a
	// *OptionError. The engine checks the same again; CheckData lets a
	// face refuse the input before it shows a run. Nil: nothing to check.
	CheckData func(Config) error `json:"-"`
	// New builds the engine for a validated config. Required.
	New Factory `json:"-"`
}

// CheckData runs cfg's method's CheckData (Method.CheckData), if any.
func CheckData(cfg Config) error {
	m, err := LookupMethod(cfg.Method)
	if err != nil || m.CheckData == nil {
		return err
	}
	return m.CheckData(cfg)
}

// Calibration is a method's preview of a config's noise (Method.Calibrate).
type Calibration struct {
	// Sigma is the noise multiplier the run starts with: Config.Sigma when
	// set, else the one solved for Config.Epsilon.
	Sigma float64 `json:"sigma"`
	// Projected is ε at the end of the plan at Sigma, per accountant, the
	// first the one the run enforces its target with.
	Projected []EpsilonValue `json:"projected"`
	// Orders names the RDP order list of the RDP figures, as
	// BudgetEvent.Orders does.
	Orders string `json:"orders,omitempty"`
	// Steps is the number of noised releases the plan makes.
	Steps int `json:"steps"`
	// Planned lists the plan's releases at Sigma, every mechanism (as
	// BudgetEvent.Planned does).
	Planned []Mechanism `json:"planned,omitempty"`
}

// NullFollowsEpsilon reports whether m's null run of cfg is itself a
// private run at cfg's ε (dcan-sound's: its pipeline without the learning
// step, on the same budget), so that its line differs from one ε to the
// next: faces give it per run and per sweep point, never as one
// horizontal line across an ε axis.
func (m Method) NullFollowsEpsilon(cfg Config) bool {
	return m.Null != nil && m.Null(cfg).Mode != ModeNonPrivate
}

// Baselines returns the sound-mode baseline methods (Method.Baseline).
func Baselines() []Method {
	var out []Method
	for _, m := range Methods() {
		if m.Baseline && m.AcceptsMode(ModeSound) {
			out = append(out, m)
		}
	}
	return out
}

// Label returns Title, or Name when Title is empty.
func (m Method) Label() string {
	if m.Title != "" {
		return m.Title
	}
	return m.Name
}

// Entries returns the presets, or one per mode when none are declared.
func (m Method) Entries() []Preset {
	if len(m.Presets) > 0 {
		return slices.Clone(m.Presets)
	}
	out := make([]Preset, len(m.Modes))
	for i, mode := range m.Modes {
		out[i] = Preset{Label: m.Label() + " " + string(mode), Mode: mode}
	}
	return out
}

// Option returns the spec of key (or of one of its aliases).
func (m Method) Option(key string) (OptionSpec, bool) {
	for _, s := range m.Options {
		if s.Key == key || slices.Contains(s.Aliases, key) {
			return s, true
		}
	}
	return OptionSpec{}, false
}

// LiveKeys returns the option keys a run takes mid-run (Patch.Options).
func (m Method) LiveKeys() []string {
	var out []string
	for _, s := range m.Options {
		if s.Live {
			out = append(out, s.Key)
		}
	}
	return out
}

// AcceptsMode reports whether mode is one of Modes.
func (m Method) AcceptsMode(mode Mode) bool { return slices.Contains(m.Modes, mode) }

// check returns why m cannot be registered, or nil.
func (m Method) check() error {
	if m.Name == "" || m.New == nil {
		return fmt.Errorf("method %q has an empty name or a nil New", m.Name)
	}
	switch m.Family {
	case FamilyDPSGD, FamilyFederated, FamilyDenoising, FamilyClustering:
	default:
		return fmt.Errorf("method %s: family is %q, must be one of the core.Family constants", m.Name, m.Family)
	}
	for _, mode := range m.Modes {
		if mode != ModeNonPrivate && mode != ModePaper && mode != ModeSound {
			return fmt.Errorf("method %s: mode %q is not a core mode", m.Name, mode)
		}
	}
	for _, p := range m.Presets {
		if !m.AcceptsMode(p.Mode) || p.Label == "" {
			return fmt.Errorf("method %s: preset %q has an empty label or a mode it does not accept", m.Name, p.Label)
		}
		if _, err := ParseOptions(m.Options, p.Options); err != nil {
			return fmt.Errorf("method %s: preset %q: %w", m.Name, p.Label, err)
		}
	}
	seen := map[string]bool{}
	for _, s := range m.Options {
		for _, k := range append([]string{s.Key}, s.Aliases...) {
			if seen[k] {
				return fmt.Errorf("method %s: option key %q declared twice", m.Name, k)
			}
			seen[k] = true
		}
		if err := s.check(); err != nil {
			return fmt.Errorf("method %s: %w", m.Name, err)
		}
	}
	return nil
}
