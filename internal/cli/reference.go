package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
)

// references are the reference lines of a run's data and method. They are
// computed from the private data (B1 without noise; a null or baseline
// that is itself a private run shows only its ARI and NMI): references for
// reading a result, never releases, and covered by no guarantee.
type references struct {
	// PCAKMeans is B1: PCA(50) + k-means on the same preprocessed matrix.
	PCAKMeans *reference.Line `json:"pca_kmeans,omitempty"`
	// Null is what the method gives without learning from the data.
	Null *reference.Line `json:"null,omitempty"`
	// Baseline is the private baseline (BaselineMethod: dppca) at a sound
	// run's own ε, with its own defaults (reference.BaselineConfig).
	Baseline       *reference.Line `json:"baseline,omitempty"`
	BaselineMethod string          `json:"baseline_method,omitempty"`
	// Self is the run's own settings at the null's seeds, for a private
	// run of a method with core.Method.SeedCheck: the runs the verdict
	// compares with the null seed by seed.
	Self *reference.Line `json:"self,omitempty"`
	// Missing says why a line is absent (no labels, no null run, …).
	Missing []string `json:"missing,omitempty"`
}

// computeReferences returns B1 for cfg's data (with its preprocessing) and
// the null of cfg's method, from the reference cache.
func computeReferences(ctx context.Context, cfg core.Config) *references {
	refs := &references{}
	if l, err := b1Line(ctx, cfg); err != nil {
		refs.Missing = append(refs.Missing, "B1: "+err.Error())
	} else {
		refs.PCAKMeans = l
	}
	if l, err := nullLine(ctx, cfg); err != nil {
		refs.Missing = append(refs.Missing, "null: "+err.Error())
	} else {
		refs.Null = l
	}
	if refs.Null != nil && cfg.Mode != core.ModeNonPrivate {
		if m, err := core.LookupMethod(cfg.Method); err == nil && m.SeedCheck {
			if l, err := reference.DefaultCache().Self(ctx, cfg); err != nil {
				refs.Missing = append(refs.Missing, "self: "+err.Error())
			} else {
				refs.Self = &l
			}
		}
	}
	if b, ok := reference.BaselineOf(cfg, core.Baselines()); ok {
		if l, err := reference.DefaultCache().Baseline(ctx, b, cfg); err != nil {
			refs.Missing = append(refs.Missing, "baseline "+b.Name+": "+err.Error())
		} else {
			refs.Baseline, refs.BaselineMethod = &l, b.Name
		}
	}
	return refs
}

// b1Line is B1 on cfg's data as preprocessed for cfg.
func b1Line(ctx context.Context, cfg core.Config) (*reference.Line, error) {
	prep, err := cfg.LoadData()
	if err != nil {
		return nil, err
	}
	l, err := reference.DefaultCache().B1(ctx, prep.Data)
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// nullLine is the null of cfg's method; an error says why there is none.
func nullLine(ctx context.Context, cfg core.Config) (*reference.Line, error) {
	m, err := core.LookupMethod(cfg.Method)
	if err != nil {
		return nil, err
	}
	l, err := reference.DefaultCache().Null(ctx, m, cfg)
	if errors.Is(err, reference.ErrNoNull) {
		return nil, fmt.Errorf("%s has no null run (B1 is its reference)", m.Label())
	}
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// addReferences computes the reference lines and, for a private run, the
// verdict against the null.
func (s *runSummary) addReferences(ctx context.Context, cfg core.Config) {
	s.Reference = computeReferences(ctx, cfg)
	if s.ARI != nil {
		s.Verdict, s.Learning = reference.Verdict(cfg.Mode != core.ModeNonPrivate, *s.ARI, s.Reference.Null, s.Reference.Self)
	}
}

// writeReferences prints the reference lines for people.
func (r *references) write(w io.Writer) {
	if r == nil {
		return
	}
	line := func(name string, l *reference.Line) {
		if l != nil {
			fmt.Fprintf(w, "%s\tARI %.4f ± %.4f, NMI %.4f ± %.4f over %d seeds (reference, not a release)\n", name, l.ARI, l.ARISD, l.NMI, l.NMISD, l.Seeds)
		}
	}
	line("B1 PCA + k-means", r.PCAKMeans)
	line("null (no learning)", r.Null)
	line("these settings", r.Self)
	if r.Baseline != nil {
		line(r.BaselineMethod+" at the same ε", r.Baseline)
	}
}
