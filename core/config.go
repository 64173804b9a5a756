package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/datasets"
)

// Mode names a variant of a method (METHODS.md): the paper as published,
// the closest variant with a valid guarantee, or no privacy at all.
type Mode string

// The modes every private method offers.
const (
	ModeNonPrivate Mode = "nonprivate"
	ModePaper      Mode = "paper"
	ModeSound      Mode = "sound"
)

// LayerRange is a contiguous range of autoencoder layers, 1-based and
// inclusive: DP-DCAN's encoder is 1–3, its decoder 4–6.
type LayerRange struct {
	First int `json:"first" toml:"first"`
	Last  int `json:"last" toml:"last"`
}

// String returns "First-Last".
func (r LayerRange) String() string { return fmt.Sprintf("%d-%d", r.First, r.Last) }

// Contains reports whether layer l is in the range.
func (r LayerRange) Contains(l int) bool { return l >= r.First && l <= r.Last }

// Validate checks that the range is contiguous within 1..layers.
func (r LayerRange) Validate(layers int) error {
	if r.First < 1 || r.Last > layers || r.First > r.Last {
		return badf("layer range is %s, must satisfy 1 ≤ first ≤ last ≤ %d", r, layers)
	}
	return nil
}

// Config is everything a run needs. It is serialisable, so a run can be
// saved, shared and replayed. Fields a method does not use are ignored by it;
// zero means "the method's default" only where a field says so.
type Config struct {
	// Data names the data set: "builtin:NAME" or a path. Required.
	Data string `json:"data" toml:"data"`
	// Labels is a labels file (barcode<TAB>label) joined onto Data by
	// barcode. Default "": an MTX folder's labels.tsv, none for a dense
	// file; a built-in set carries its own labels and takes none.
	Labels string `json:"labels,omitempty" toml:"labels,omitempty"`
	// LabelsColumn is the obs column of an .h5ad Data file whose values are
	// the cells' true labels. Default "": none (a labels file may be given
	// instead).
	LabelsColumn string `json:"labels_column,omitempty" toml:"labels_column,omitempty"`
	// UseRaw reads an .h5ad Data file's raw/X (where AnnData keeps the
	// counts) instead of X. Default false: X.
	UseRaw bool `json:"use_raw,omitempty" toml:"use_raw,omitempty"`
	// Orientation is how a dense Data file is laid out: auto,
	// genes-by-cells or cells-by-genes. Default "": auto.
	Orientation string `json:"orientation,omitempty" toml:"orientation,omitempty"`
	// Preprocess is the preprocessing every method applies to Data before
	// training (datasets.LoadPreprocessed). Nil: the defaults,
	// datasets.DefaultPreprocessConfig.
	Preprocess *datasets.PreprocessConfig `json:"preprocess,omitempty" toml:"preprocess,omitempty"`
	// Method is a registered method name, e.g. "dcan". Required.
	Method string `json:"method" toml:"method"`
	// Mode is nonprivate, paper or sound. Required.
	Mode Mode `json:"mode" toml:"mode"`
	// Epsilon is the target ε of the whole run. Zero: no target, σ is used
	// as given.
	Epsilon float64 `json:"epsilon" toml:"epsilon"`
	// Delta is the δ of every (ε, δ) reported. Required in (0, 1) for
	// private modes.
	Delta float64 `json:"delta" toml:"delta"`
	// Sigma is the noise multiplier σ (noise standard deviation over the
	// clipping bound). Zero: solved from Epsilon.
	Sigma float64 `json:"sigma" toml:"sigma"`
	// Clip is the per-sample clipping bound C. Required > 0 for private modes.
	Clip float64 `json:"clip" toml:"clip"`
	// Layers is the range of autoencoder layers that receive noise.
	Layers LayerRange `json:"layers" toml:"layers"`
	// SampleRate is the Poisson sampling rate q of a step, in (0, 1].
	SampleRate float64 `json:"sample_rate" toml:"sample_rate"`
	// Epochs per stage (or rounds, for federated methods).
	Epochs []int `json:"epochs" toml:"epochs"`
	// Accountant is the one that enforces the target: "rdp" (default when
	// empty) or "pld". Both are always reported.
	Accountant string `json:"accountant" toml:"accountant"`
	// LearningRate overrides the method's default when > 0.
	LearningRate float64 `json:"learning_rate" toml:"learning_rate"`
	// Clients is the number of federated clients (federated methods only).
	Clients int `json:"clients" toml:"clients"`
	// Seed makes the run reproducible.
	Seed uint64 `json:"seed" toml:"seed"`
	// SecureNoise draws DP noise from a cryptographically seeded generator;
	// otherwise noise follows Seed (for teaching and reproducibility only).
	SecureNoise bool `json:"secure_noise" toml:"secure_noise"`
	// Options holds a method's own settings by name (e.g. dpmd's "h" and
	// "theta", the federated methods' "split"). Each method documents its
	// keys and rejects the ones it does not know.
	Options map[string]string `json:"options,omitempty" toml:"options,omitempty"`
	// Audit, when set, runs an empirical privacy audit beside the run
	// (docs/AUDIT.md): canaries inserted, scored at the end and turned into
	// a lower bound on ε (an AuditEvent). Nil: no audit, and the run is
	// exactly the run without this field.
	Audit *AuditSpec `json:"audit,omitempty" toml:"audit,omitempty"`
}

// ErrBadConfig is wrapped by every validation error of a Config or Patch.
var ErrBadConfig = errors.New("core: invalid configuration")

// badf returns a validation error wrapping ErrBadConfig.
// The sentence names the field and what it must be; the sentinel's own
// words ("core: invalid configuration") would only repeat that.
func badf(format string, args ...any) error { return Wrapf(ErrBadConfig, format, args...) }

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Validate checks the fields every method shares; methods check the rest.
func (c Config) Validate() error {
	if c.Data == "" {
		return badf("data is empty, must name a data set")
	}
	if c.Method == "" {
		return badf("method is empty, must be one of %v", MethodNames())
	}
	switch c.Mode {
	case ModeNonPrivate, ModePaper, ModeSound:
	default:
		return badf("mode is %q, must be %s, %s or %s", c.Mode, ModeNonPrivate, ModePaper, ModeSound)
	}
	if err := checkEpsilon(c.Epsilon, true); err != nil {
		return err
	}
	if c.Mode != ModeNonPrivate {
		if err := checkDelta(c.Delta); err != nil {
			return err
		}
		if err := checkPositive("clip", c.Clip); err != nil {
			return err
		}
		if c.Epsilon == 0 && c.Sigma == 0 {
			return badf("epsilon and sigma are both 0, a private mode needs a target ε or a noise multiplier σ")
		}
	}
	if c.Sigma != 0 {
		if err := checkPositive("sigma", c.Sigma); err != nil {
			return err
		}
	}
	if !finite(c.SampleRate) || c.SampleRate <= 0 || c.SampleRate > 1 {
		return badf("sample rate is %v, must be in (0, 1]", c.SampleRate)
	}
	for i, e := range c.Epochs {
		if e < 0 {
			return badf("epochs of stage %d is %d, must be ≥ 0", i+1, e)
		}
	}
	switch c.Accountant {
	case "", "rdp", "pld":
	default:
		return badf("accountant is %q, must be rdp or pld", c.Accountant)
	}
	if c.LearningRate != 0 {
		if err := checkPositive("learning rate", c.LearningRate); err != nil {
			return err
		}
	}
	if c.Clients < 0 {
		return badf("clients is %d, must be ≥ 0", c.Clients)
	}
	if _, err := c.LoadOptions(); err != nil {
		return err
	}
	if c.Audit != nil {
		if err := c.Audit.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// LoadOptions returns how every method reads and preprocesses Data:
// Labels, LabelsColumn, UseRaw, Orientation and Preprocess (the defaults
// when nil). It returns an error wrapping ErrBadConfig for an invalid
// orientation or preprocessing setting, or labels settings that cannot
// apply (on a built-in set, or a labels file together with a column).
func (c Config) LoadOptions() (datasets.LoadOptions, error) {
	o := datasets.DefaultLoadOptions()
	if c.Labels != "" && strings.HasPrefix(c.Data, datasets.BuiltinPrefix) {
		return o, badf("labels is %q, but %s carries its own true labels: drop the labels file or use a data set read from a path", c.Labels, c.Data)
	}
	if (c.LabelsColumn != "" || c.UseRaw) && strings.HasPrefix(c.Data, datasets.BuiltinPrefix) {
		return o, badf("labels column %q and use-raw apply to .h5ad files, and %s is generated", c.LabelsColumn, c.Data)
	}
	if c.LabelsColumn != "" && c.Labels != "" {
		return o, badf("labels is %q and labels column is %q: give one, a labels file or an obs column", c.Labels, c.LabelsColumn)
	}
	o.Labels, o.LabelsColumn, o.UseRaw = c.Labels, c.LabelsColumn, c.UseRaw
	orient, err := datasets.ParseOrientation(c.Orientation)
	if err != nil {
		return o, badf("%v", err)
	}
	o.Orientation = orient
	if c.Preprocess != nil {
		if err := c.Preprocess.Validate(); err != nil {
			return o, badf("preprocess: %v", err)
		}
		o.Preprocess = *c.Preprocess
	}
	return o, nil
}

// LoadRaw reads Data with the run's labels settings and orientation but no
// preprocessing: for methods that preprocess privately themselves (dppca,
// dcan-sound), so that the data flags reach them as they reach LoadData's.
func (c Config) LoadRaw() (*datasets.Dataset, error) {
	o, err := c.LoadOptions()
	if err != nil {
		return nil, err
	}
	d, _, err := datasets.DefaultCache().Load(c.Data, datasets.OpenOptions{
		Labels: o.Labels, Orientation: o.Orientation, LabelsColumn: o.LabelsColumn, UseRaw: o.UseRaw,
	})
	return d, err
}

// LoadData reads and preprocesses Data as LoadOptions says: the one data
// path of every engine that trains on a data set. Both it and LoadRaw go
// through the user's data cache (datasets.DefaultCache), so the runs of a
// sweep parse and preprocess a data set once.
func (c Config) LoadData() (*datasets.Prepared, error) {
	return c.LoadDataContext(context.Background())
}

// LoadDataContext is LoadData stopped once ctx is done, with an error
// wrapping ctx's error (datasets.LoadPreprocessedContext): the TUI's data
// picker cancels a load with it.
func (c Config) LoadDataContext(ctx context.Context) (*datasets.Prepared, error) {
	o, err := c.LoadOptions()
	if err != nil {
		return nil, err
	}
	return datasets.DefaultCache().LoadPreprocessedContext(ctx, c.Data, o)
}

func checkEpsilon(eps float64, zeroOK bool) error {
	if !finite(eps) || eps < 0 || (eps == 0 && !zeroOK) {
		return badf("epsilon is %v, must be finite and > 0", eps)
	}
	return nil
}

func checkDelta(delta float64) error {
	if !finite(delta) || delta <= 0 || delta >= 1 {
		return badf("delta is %v, must be in (0, 1)", delta)
	}
	return nil
}

func checkPositive(name string, v float64) error {
	if !finite(v) || v <= 0 {
		return badf("%s is %v, must be finite and > 0", name, v)
	}
	return nil
}

// ParseLayerRange reads "FIRST-LAST" or a single layer "N" (spaces allowed).
// It checks the syntax only; Validate checks the bounds.
func ParseLayerRange(s string) (LayerRange, error) {
	lo, hi, found := strings.Cut(strings.TrimSpace(s), "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(lo))
	last, err2 := first, error(nil)
	if found {
		last, err2 = strconv.Atoi(strings.TrimSpace(hi))
	}
	if err1 != nil || err2 != nil {
		return LayerRange{}, badf("layer range is %q, must be FIRST-LAST such as 1-3, or one layer", s)
	}
	return LayerRange{First: first, Last: last}, nil
}

// MarshalText writes the range as "FIRST-LAST", in JSON and TOML alike.
func (r LayerRange) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a range written by MarshalText or ParseLayerRange.
func (r *LayerRange) UnmarshalText(b []byte) error {
	v, err := ParseLayerRange(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// MethodConfigError is a method package's own configuration sentinel (its
// ErrConfig): it prints as "NAME: invalid configuration" and matches
// ErrBadConfig under errors.Is, so a face can tell every bad input from a
// failure without knowing which method raised it.
type MethodConfigError struct{ Method string }

// Error implements error.
func (e *MethodConfigError) Error() string { return e.Method + ": invalid configuration" }

// Unwrap makes every method's configuration error an ErrBadConfig.
func (e *MethodConfigError) Unwrap() error { return ErrBadConfig }
