package datasets

import (
	"context"
	"fmt"
)

// LoadOptions is how LoadPreprocessed reads and preprocesses a data set:
// the settings of the --labels, --labels-column, --use-raw, --orientation
// and preprocessing flags.
type LoadOptions struct {
	// Labels is a labels file joined by barcode (OpenOptions.Labels).
	// Default "": a folder's labels.tsv, none for a dense file.
	Labels string
	// Orientation applies to dense files. Default OrientationAuto.
	Orientation Orientation
	// LabelsColumn is the obs column of an .h5ad file read as labels
	// (OpenOptions.LabelsColumn). Default "": none.
	LabelsColumn string
	// UseRaw reads an .h5ad file's raw/X instead of X (OpenOptions.UseRaw).
	UseRaw bool
	// Preprocess is the pipeline. Required: start from
	// DefaultPreprocessConfig.
	Preprocess PreprocessConfig
}

// DefaultLoadOptions returns the options every command and engine uses when
// no flag or config says otherwise.
func DefaultLoadOptions() LoadOptions {
	return LoadOptions{Preprocess: DefaultPreprocessConfig()}
}

// Prepared is a data set as loaded and preprocessed by LoadPreprocessed.
type Prepared struct {
	Raw    *Dataset      // as read, before preprocessing
	Data   *Preprocessed // the matrix a model trains on
	Labels *LabelReport  // the labels join; nil when no labels file was joined
}

// Summary describes the set and its preprocessing (Summarize).
func (p *Prepared) Summary() Summary { return Summarize(p.Raw, p.Data, p.Labels) }

// LoadPreprocessed is the one data path of dpscope: it validates opts, loads
// spec (Load) with opts' labels and orientation, and runs Preprocess with
// opts.Preprocess. Every engine and `data inspect` read data through it, so
// a setting given once reaches every method. Errors name spec and, for an
// invalid option, the field.
func LoadPreprocessed(spec string, opts LoadOptions) (*Prepared, error) {
	return LoadPreprocessedContext(context.Background(), spec, opts)
}

// LoadPreprocessedContext is LoadPreprocessed stopped once ctx is done:
// between parsing blocks (LoadContext) and between preprocessing steps
// (PreprocessContext), with an error wrapping ctx's error.
func LoadPreprocessedContext(ctx context.Context, spec string, opts LoadOptions) (*Prepared, error) {
	if err := opts.Preprocess.Validate(); err != nil {
		return nil, err
	}
	if _, err := ParseOrientation(opts.Orientation.String()); err != nil {
		return nil, err
	}
	raw, rep, err := LoadContext(ctx, spec, opts.open())
	if err != nil {
		return nil, err
	}
	d, err := PreprocessContext(ctx, raw, opts.Preprocess)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: preprocess: %w", spec, err)
	}
	return &Prepared{Raw: raw, Data: d, Labels: rep}, nil
}

// open returns the OpenOptions of o.
func (o LoadOptions) open() OpenOptions {
	return OpenOptions{Labels: o.Labels, Orientation: o.Orientation, LabelsColumn: o.LabelsColumn, UseRaw: o.UseRaw}
}
