package tui

// Field indices of the Run form.
const (
	fMethod = iota
	fData
	fManifold
	fDim
	fRefs
	fQueries
	fNoise
	fIters
	fTheta
	fBandwidth
	fIntrinsic
	fClients
	fRounds
	fLocalEpochs
	fSplit
	fProtocol
	fEpsilon
	fDelta
	fSigma
	fFedSigma
	fClip
	fLayerFrom
	fLayerTo
	fRate
	fEpochs1
	fEpochs2
	fAccountant
	fAudit
	fSeed
)

// runFields builds the Run form over the pane's params: one list indexed by
// the constants above, each family's fields set by its own file
// (fields_common, fields_dpsgd, fields_fed, fields_denoise, fields_audit). A field says
// itself when it is shown, whether it may change during a run and the
// patch it sends then.
func (p *runPane) runFields() []field {
	fs := make([]field, fSeed+1)
	p.commonFields(fs)
	p.dpsgdFields(fs)
	p.fedFields(fs)
	p.denoiseFields(fs)
	p.auditField(fs)
	return fs
}

// notPrivate says why a privacy field cannot change: the method adds no
// noise.
func (p *runPane) notPrivate() string {
	if !p.params.Private() {
		return "no noise in " + p.params.V().Label
	}
	return ""
}

// layersFixed says why the layer range cannot change.
func (p *runPane) layersFixed() string {
	if why := p.notPrivate(); why != "" {
		return why
	}
	if l := p.params.V().Layers; l != nil {
		return p.params.V().Label + " noises layers " + l.String()
	}
	return ""
}
