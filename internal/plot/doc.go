// Package plot draws dpscope's publication figures with gonum.org/v1/plot:
// the privacy–utility trade-off (ARI or NMI against ε on a log axis, mean
// ± sd bands over seeds, the B1 and null reference lines, the non-private
// point), the training trace (loss and ε against steps) and the 2-D
// embedding coloured by the true labels and by the clusters.
//
// Figures are sized for a paper: one column (3.5 in) or the page width
// (7 in), and written as PNG (300 dpi), SVG or PDF. Series are told apart
// by the Okabe–Ito palette, which colour-blind readers can distinguish,
// and also by marker shape and dash pattern, so a greyscale print stays
// readable.
//
// The package takes plain data (see TradeOff, Training, Embedding): it
// reads no folder and knows nothing of runs; internal/cli turns run and
// sweep folders into these values. One job per file: style.go (palette,
// markers, sizes), render.go (formats and panels), ticks.go (the ε axis),
// tradeoff.go, training.go, embedding.go.
package plot
