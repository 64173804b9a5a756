// Package assets holds the files dpscope embeds in its binary (with Go's
// embed directive), so that `go run .` needs no file on disk: the
// specifications of the built-in data sets (and later themes and lesson
// texts).
//
// The package is a leaf: it imports nothing of dpscope, and only exposes the
// raw files; package datasets decodes the data set specifications.
package assets

import "embed"

// Datasets holds one JSON specification per built-in data set, at
// datasets/NAME.json. Each file is a datasets.SimConfig (simulator
// parameters, JSON field names as in its tags) plus a "description"; the
// data set is regenerated from it on demand.
//
//go:embed datasets/*.json
var Datasets embed.FS

// Simulations holds specifications in the same format, at
// simulations/NAME.json, of the simulation families that rules were judged
// on (docs/RESULTS.md): "builtin:NAME:SEED" draws one, but they are not
// offered as data sets (BuiltinNames does not list them), since they exist
// to make those draws reproducible, not to be explored.
//
//go:embed simulations/*.json
var Simulations embed.FS

// Lessons holds the Learn screen's short lessons, at lessons/NN-name.md:
// markdown (headings, paragraphs, "-" lists, **bold**, `code`) with
// text/template fields such as {{.Eps}} that the interface fills with the
// current parameters. They are read in name order.
//
//go:embed lessons/*.md
var Lessons embed.FS
