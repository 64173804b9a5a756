package sounddcan

import "github.com/dpscope/dpscope/core/method/dppca"

// RowsGenesScale is the scale of dppca's own gene rule that rows=auto
// reads and switches to (dppca.DefaultGenesScale: h = ñ·μ/18 within
// [50, 1000]), so the switched start reads as many genes as dppca does
// alone.
const RowsGenesScale = dppca.DefaultGenesScale

// rowsDefault reports whether o's row options are the default's, the
// only ones rows=auto switches from.
func (o Options) rowsDefault() bool {
	return o.Genes == dppca.GenesAuto && o.GenesScale == DefaultGenesScale && o.GenesFloor == dppca.DefaultGenes &&
		!o.GenesWhole && !o.GenesRulesAtDefault && o.Target == TargetAuto && o.Offset == "" &&
		o.Start == StartStage && o.Prep == dppca.PrepPrivate && o.Handoff == HandoffOff
}

// dppcaRows is o with the start's rows built as dppca's
// (genes=alonestart:18, target=1000, offset=dir: sdcan26's candidate 2),
// and rows=auto spent: what Parse gives for those three options. The
// rules that read ρ (the staged split, net=rho) read it at the default's
// h under alonestart, so the network's decision is the default's.
func (o Options) dppcaRows() Options {
	o.Genes, o.GenesScale, o.GenesFloor = dppca.GenesAuto, RowsGenesScale, 0
	o.GenesWhole, o.GenesRulesAtDefault = true, true
	o.Target, o.Offset = TargetLow, dppca.OffsetDir
	o.RowsBelow = 0
	return o
}

// rowsH is the h rows=auto compares with its bound: dppca's own gene
// rule at the whole run's μ from the released cell count n (the h the
// switched start would read).
func rowsH(n, mu float64) int {
	return dppca.GenesRuleScale(n, mu, RowsGenesScale)
}
