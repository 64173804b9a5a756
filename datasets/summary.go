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
	// KeptCells and SelectedGenes are the shape after preprocessing.
	KeptCells     int    `json:"kept_cells"`
	SelectedGenes int    `json:"selected_genes"`
	Preprocessing []Step `json:"preprocessing"`
}

// Summarize describes d and, when p is not nil, its preprocessing.
func Summarize(d *Dataset, p *Preprocessed) Summary {
	s := Summary{
		Name:      d.Name,
		Source:    d.Source,
		Cells:     d.Cells(),
		Genes:     d.Genes(),
		NonZero:   d.X.NNZ(),
		ValueType: d.ValueType.String(),
		Classes:   []ClassCount{},
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
	if p != nil {
		s.KeptCells, s.SelectedGenes, s.Preprocessing = p.Cells, p.Genes, p.Steps
	}
	return s
}
