package dppca

// Option genesmin (twenty-fifth attempt, dppca27): the floor of
// genes=auto's h = ñ·μ/s. The default floor, GenesAutoMin = 50, was set
// to "keep a covariance to speak of"; at small n·μ it overrides the rule
// by a wide margin (pollen at ε 1: ñ·μ/18 ≈ 4 genes, h = 50). Why a lower
// floor can help there, read from the plan's public noise alone: the
// rows are clipped to R = c·√h, so a direction holding a share f of the
// rows' squared norm has an eigenvalue of about f·ñ·c²·h, while the
// covariance's noise edge is σ_PCA·√(2h)·(1 + h^(−2/3)) with
// σ_PCA = c²·h/(μ·√split): a direction is seen when f exceeds
// √(2h)·(1 + h^(−2/3))/(ñ·μ·√split), which grows as √h. Fewer genes
// also shrink the gene means' noise per gene (their Δ is 2·√h), so the
// common offset offset=dir removes is smaller to begin with. Against
// that, the genes of largest mean carry less of the types' structure
// the fewer they are (f falls), so where the floor belongs is a
// question for the simulations, not this argument. On the development
// draws of the twenty-fifth attempt floors of 25, 12 and 6 did not move
// the mean (−0.0003 ± 0.0020 per cell at 12) and lost beyond seed noise
// on the 300-cell families at ε 4, so the default floor stays 50
// (docs/RESULTS.md, dppca twenty-fifth attempt).

// MinGenesMin is the least floor option genesmin takes: p=auto keeps at
// least two components, so h needs two genes.
const MinGenesMin = 2

// genesMin is the floor of genes=auto's h: GenesMin, or GenesAutoMin
// when unset.
func (o Options) genesMin() int {
	if o.GenesMin > 0 {
		return o.GenesMin
	}
	return GenesAutoMin
}
