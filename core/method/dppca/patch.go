package dppca

import "github.com/dpscope/dpscope/core"

// PatchOptions lists the option keys a patch may change (core.OptionPatcher).
func (e *Engine) PatchOptions() []string { return append([]string(nil), LiveKeys...) }

// patched returns the settings after p, all or nothing.
func (r *runner) patched(p core.Patch) (settings, error) {
	st := r.st
	if p.Sigma != nil || p.Layers != nil || p.LearningRate != nil || p.Clients != nil {
		return st, optf("dppca takes only ε, δ, the clip radius and the options %v live", LiveKeys)
	}
	private := r.e.cfg.Mode == core.ModeSound
	if !private && (p.Epsilon != nil || p.Delta != nil) {
		return st, optf("nonprivate mode has no budget: ε and δ cannot change")
	}
	if p.Epsilon != nil {
		st.eps = *p.Epsilon
	}
	if p.Delta != nil {
		st.delta = *p.Delta
	}
	if p.Clip != nil {
		st.radius = *p.Clip
	}
	if err := st.o.set(p.Options, LiveKeys); err != nil {
		return r.st, err
	}
	if _, ok := p.Options["clip"]; ok {
		st.radius = 0
	}
	var err error
	if st.o, err = st.o.Resolve(); err != nil {
		return r.st, err
	}
	if g := r.src.Genes(st.o.genesCap()); st.o.PRule == PRuleFixed && st.o.P > g {
		return r.st, optf("option p is %d, must be ≤ the %d genes used", st.o.P, g)
	}
	return st, nil
}
