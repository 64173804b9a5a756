package datasets

import (
	"context"
	"fmt"
	"strings"
)

// BuiltinPrefix marks a data set name that is generated, not read:
// "builtin:default".
const BuiltinPrefix = "builtin:"

// Load opens the data set spec names: "builtin:NAME" generates a built-in
// set (Builtin), anything else is a path read by OpenWithReport. The label
// report is nil when no labels file was joined.
func Load(spec string, opts OpenOptions) (*Dataset, *LabelReport, error) {
	return LoadContext(context.Background(), spec, opts)
}

// LoadContext is Load stopped once ctx is done (OpenWithReportContext); a
// built-in set, generated in one go, is dropped once generated.
func LoadContext(ctx context.Context, spec string, opts OpenOptions) (*Dataset, *LabelReport, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	name, ok := strings.CutPrefix(spec, BuiltinPrefix)
	if !ok {
		return OpenWithReportContext(ctx, spec, opts)
	}
	d, err := Builtin(name)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if opts.Labels != "" {
		return nil, nil, fmt.Errorf("datasets: %s carries its true labels; a labels file (%s) cannot be joined to it", spec, opts.Labels)
	}
	if opts.LabelsColumn != "" || opts.UseRaw {
		return nil, nil, fmt.Errorf("datasets: %s is generated, not an .h5ad file: a labels column (%q) and use-raw do not apply", spec, opts.LabelsColumn)
	}
	return d, nil, nil
}
