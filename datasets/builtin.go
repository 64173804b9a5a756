package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/assets"

	"github.com/dpscope/dpscope/internal/errkind"
)

// ErrUnknownBuiltin is returned (wrapped) by Builtin and BuiltinSpec for a
// name that is not a built-in data set.
var ErrUnknownBuiltin = errors.New("datasets: unknown built-in data set")

// BuiltinSpec is the specification of a built-in data set: simulator
// parameters and a one-line description, decoded from
// assets/datasets/NAME.json (or assets/simulations/NAME.json).
type BuiltinSpec struct {
	// Description says in one line what the data set is.
	Description string `json:"description"`
	SimConfig
}

// BuiltinNames returns the names of the built-in data sets, sorted. The
// simulation families of assets/simulations (fedsc6, fednest) are not
// listed: GetBuiltinSpec resolves them for reproducing judged draws.
func BuiltinNames() []string {
	entries, err := fs.ReadDir(assets.Datasets, "datasets")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// GetBuiltinSpec returns the decoded, validated specification of the
// built-in data set name. Unknown JSON fields are errors, so that a typo in
// a spec cannot silently fall back to a default.
//
// A name "NAME:SEED" (SEED a decimal uint64) is NAME's specification with
// its simulator seed replaced by SEED: another draw of the same family, so
// that simulation draws used to judge a rule (e.g. "builtin:fedsc6:31",
// docs/RESULTS.md) are named on the command line instead of being written
// by throwaway programs.
func GetBuiltinSpec(name string) (BuiltinSpec, error) {
	var spec BuiltinSpec
	base, seed, hasSeed, err := splitBuiltinSeed(name)
	if err != nil {
		return spec, err
	}
	if hasSeed {
		spec, err := GetBuiltinSpec(base)
		if err != nil {
			return spec, err
		}
		spec.Seed = seed
		return spec, nil
	}
	if strings.ContainsAny(name, `/\.:`) || name == "" {
		return spec, builtinUnknown(name)
	}
	file := path.Join("datasets", name+".json")
	raw, err := fs.ReadFile(assets.Datasets, file)
	if err != nil {
		file = path.Join("simulations", name+".json")
		if raw, err = fs.ReadFile(assets.Simulations, file); err != nil {
			return spec, builtinUnknown(name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return spec, fmt.Errorf("datasets: builtin:%s: spec assets/%s: %w", name, file, err)
	}
	if err := spec.Validate(); err != nil {
		return spec, fmt.Errorf("datasets: builtin:%s: %w", name, err)
	}
	return spec, nil
}

// Builtin generates the built-in data set name ("default" is the one every
// build has; "NAME:SEED" is another draw, GetBuiltinSpec) from its embedded
// specification, with Name name and Source "builtin:NAME". An unknown name gives an error wrapping ErrUnknownBuiltin
// that lists the known names. The data set is regenerated on every call
// (about 0.2 s for the default on two cores) and is the same every time.
func Builtin(name string) (*Dataset, error) {
	spec, err := GetBuiltinSpec(name)
	if err != nil {
		return nil, err
	}
	d, _, err := Simulate(spec.SimConfig)
	if err != nil {
		return nil, fmt.Errorf("datasets: builtin:%s: %w", name, err)
	}
	d.Name = name
	d.Source = "builtin:" + name
	return d, nil
}

// splitBuiltinSeed splits "NAME:SEED" into NAME and SEED; a name without a
// colon is returned whole with hasSeed false. A colon followed by anything
// but a decimal uint64 is an error naming the form.
func splitBuiltinSeed(name string) (base string, seed uint64, hasSeed bool, err error) {
	base, s, ok := strings.Cut(name, ":")
	if !ok {
		return name, 0, false, nil
	}
	seed, perr := strconv.ParseUint(s, 10, 64)
	if perr != nil || base == "" {
		return name, 0, false, errkind.Wrapf(ErrUnknownBuiltin, "datasets: builtin name %q: want NAME or NAME:SEED with SEED a non-negative integer", name)
	}
	return base, seed, true, nil
}

func builtinUnknown(name string) error {
	return fmt.Errorf("datasets: builtin name is %q, must be one of %s: %w",
		name, strings.Join(BuiltinNames(), ", "), ErrUnknownBuiltin)
}
