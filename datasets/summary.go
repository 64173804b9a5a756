package datasets

// ClassCount is the number of cells carrying one label.
type ClassCount struct {
	Name  string `json:"name"`
	Cells int    `json:"cells"`
}

// Summary describes a data set and its preprocessing for people and scripts:
// it is what `dpscope data inspect` prints and what the TUI shows.
type Summary struct {
	Name       string       `json:"name"`
	Source     string       `json:"source"`
	Cells      int          `json:"cells"`
	Genes      int          `json:"genes"`
	NonZero    int          `json:"nonzero"`
	Sparsity   float64      `json:"sparsity"` // fraction of zero entries
	ValueType  string       `json:"value_type"`
	Classes    []ClassCount `json:"classes"`
	Unlabelled int          `json:"unlabelled"` // cells with no label
	// LabelJoin says how a labels file matched the cells; nil when none was
	// joined.
	LabelJoin *LabelJoin `json:"label_join,omitempty"`
	// KeptCells and SelectedGenes are the shape after preprocessing.
	KeptCells     int    `json:"kept_cells"`
	SelectedGenes int    `json:"selected_genes"`
	Preprocessing []Step `json:"preprocessing"`
	// Warnings are the data set's (see Dataset.Warnings).
	Warnings []string `json:"warnings,omitempty"`
}

// LabelJoin is the JSON form of a LabelReport.
type LabelJoin struct {
	File            string   `json:"file"`
	Labelled        int      `json:"labelled"`
	Missing         int      `json:"missing"`
	MissingExamples []string `json:"missing_examples,omitempty"`
	Unknown         int      `json:"unknown"`
	UnknownExamples []string `json:"unknown_examples,omitempty"`
}

// Summarize describes d and, when they are not nil, its preprocessing p and
// the report r of its labels join.
func Summarize(d *Dataset, p *Preprocessed, r *LabelReport) Summary {
	s := Summary{
		Name:      d.Name,
		Source:    d.Source,
		Cells:     d.Cells(),
		Genes:     d.Genes(),
		NonZero:   d.X.NNZ(),
		ValueType: d.ValueType.String(),
		Classes:   []ClassCount{},
		Warnings:  d.Warnings,
	}
	if total := float64(s.Cells) * float64(s.Genes); total > 0 {
		s.Sparsity = 1 - float64(s.NonZero)/total
	}
	for c, n := range d.ClassCounts() {
		s.Classes = append(s.Classes, ClassCount{Name: d.Classes[c], Cells: n})
	}
	if d.Labels == nil {
		s.Unlabelled = s.Cells
	}
	for _, l := range d.Labels {
		if l < 0 {
			s.Unlabelled++
		}
	}
	if r != nil {
		s.LabelJoin = &LabelJoin{File: r.File, Labelled: r.Labelled, Missing: r.Missing, MissingExamples: r.MissingExamples,
			Unknown: r.Unknown, UnknownExamples: r.UnknownExamples}
	}
	if p != nil {
		s.KeptCells, s.SelectedGenes, s.Preprocessing = p.Cells, p.Genes, p.Steps
	}
	return s
}
