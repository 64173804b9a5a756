package dcan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core"
)

// Circumstances are the facts of a run, beyond its mode and layer range,
// that change what its guarantee says.
type Circumstances struct {
	// Target is the ε target enforced by the filter; 0 when none.
	Target, Delta float64
	// K is the number of clusters; KFromLabels reports that it was read
	// from the data set's labels.
	K           int
	KFromLabels bool
	// SecureNoise reports that DP noise comes from a cryptographic source.
	SecureNoise bool
	// TargetRaised reports that an ε (or δ) target was raised mid-run.
	TargetRaised bool
	// AdaptiveNoFilter reports that σ was changed mid-run with no target,
	// so no filter covers the adaptive choice.
	AdaptiveNoFilter bool
	// KMeansIterations, KMeansNoiseRatio and EmbedClip describe sound
	// mode's DP k-means.
	KMeansIterations int
	KMeansNoiseRatio float64
	EmbedClip        float64
	// GeneMeanInit reports that the ZINB mean head's bias was initialised
	// from the per-gene mean counts of the data (Options.NoGeneMeanInit
	// unset, data with counts).
	GeneMeanInit bool
	// DispersionInit reports that the ZINB dispersion head's bias was
	// initialised from per-gene moments of the data
	// (Options.NoDispersionInit unset, data with counts).
	DispersionInit bool
}

// Reading returns the guarantee a DP-DCAN configuration carries and the
// reasons in plain words (docs/METHODS.md §1, "Privacy reading"; issue 4
// point 6):
//
//   - nonprivate: none;
//   - paper with a range other than 1–6: none, because un-noised layers
//     trained on private data shape the gradients of the noised ones;
//   - paper with 1–6 (DPE-DCAN): paper-only, the steps are accounted but
//     centroids, the DEC target and preprocessing are releases outside the
//     ledger;
//   - sound: formal under the listed assumptions, or conditional when a
//     target was raised or σ changed without a filter mid-run.
func Reading(mode core.Mode, layers core.LayerRange, c Circumstances) (core.Guarantee, []string) {
	live := "live metrics (ARI, NMI, ACC, silhouette) use the true labels of private data: they are for exploration and no guarantee covers them"
	pre := "preprocessing (gene selection, per-gene mean and sd, median size factor)"
	switch {
	case c.GeneMeanInit && c.DispersionInit:
		pre += " and the initial biases of the ZINB mean and dispersion heads (each gene's mean size-normalised count and its method-of-moments dispersion, a departure from the paper)"
	case c.GeneMeanInit:
		pre += " and the initial bias of the ZINB mean head (log of each gene's mean size-normalised count, a departure from the paper)"
	case c.DispersionInit:
		pre += " and the initial bias of the ZINB dispersion head (each gene's method-of-moments dispersion, a departure from the paper)"
	}
	outside := []string{
		"release outside the ledger: k-means centroids computed from the private stage-1 embeddings without noise (in paper mode re-set every few epochs) and trained with un-noised, unclipped gradients",
		"release outside the ledger: the DEC target uses the cluster frequencies f_j = Σ_i q_ij of every cell without noise, so each cell's loss depends on all the others",
		"release outside the ledger: " + pre + " uses all cells without noise",
	}
	if c.KFromLabels {
		outside = append(outside, fmt.Sprintf("K = %d is the number of classes of the private labels", c.K))
	}
	switch mode {
	case core.ModeNonPrivate:
		r := []string{"no privacy: DCAN trains on private data without clipping or noise"}
		return core.GuaranteeNone, append(append(r, outside...), live)
	case core.ModePaper:
		if layers.First == 1 && layers.Last == numLayers {
			r := []string{"paper accounting only: every layer 1–6 is clipped and noised, so each DP-SGD step is in the ledger, but the run makes releases the ledger does not hold"}
			return core.GuaranteePaperOnly, append(append(r, outside...), core.NoiseSourceReason(c.SecureNoise), live)
		}
		r := []string{"no formal guarantee: " + flowReason(layers)}
		r = append(r,
			"un-noised parameters trained on private data shape every perturbed gradient: for neighbouring data sets the clipped gradient of every sample in a batch can differ, so the per-step sensitivity is up to 2·B·C, not the C that the paper's Theorem 1 assumes",
			"audited: no valid guarantee — the ε beside it is the paper's own accounting")
		return core.GuaranteeNone, append(append(r, outside...), core.NoiseSourceReason(c.SecureNoise), live)
	}
	head := "formal (ε, δ)-DP for the released encoder and stage-2 centroids under Poisson sampling (add/remove-one adjacency): every layer 1–6 is clipped and noised, and every step and DP k-means release is in the ledger"
	if c.Target > 0 {
		head += fmt.Sprintf("; an RDP filter stops noisy training at ε = %s, δ = %s", fmtG(c.Target), fmtG(c.Delta))
	}
	r := []string{
		head,
		"assumption: the constants of " + pre + " are public; they are computed from the data without noise and are outside the guarantee",
		fmt.Sprintf("assumption: K = %d is public%s", c.K, map[bool]string{true: " (here it is the number of true classes)", false: ""}[c.KFromLabels]),
		"departure from the paper: DEC cluster frequencies f_j are replaced by uniform 1/K, so each cell's target depends only on that cell and released quantities",
		fmt.Sprintf("departure from the paper: stage-2 centroids come from DP k-means (random start in the ball, %d noisy Lloyd iterations on embeddings clipped to R = %s, noise multiplier %s×σ, in the ledger as \"stage 2 centroids\") and stay fixed during stage 2, where L_cc is a constant",
			c.KMeansIterations, fmtG(c.EmbedClip), fmtG(c.KMeansNoiseRatio)),
		"the embeddings and cluster labels of the training cells are computed from each cell's own data: they describe those cells and are not covered",
		"floating-point Gaussian noise is not hardened against least-significant-bit attacks (Mironov 2012)",
	}
	r = append(r, core.NoiseSourceReason(c.SecureNoise))
	status := core.GuaranteeFormal
	if c.TargetRaised {
		status = core.GuaranteeConditional
		r = append(r, "condition: the privacy target was raised mid-run after outputs were seen; the filter assumes a target fixed in advance, so the audited ε holds only if that choice did not depend on the outputs")
	}
	if c.AdaptiveNoFilter {
		status = core.GuaranteeConditional
		r = append(r, "condition: σ changed mid-run with no ε target, so no filter covers the adaptive choice; the audited ε holds only if the change did not depend on the outputs")
	}
	return status, append(r, live)
}

// flowReason says which un-noised layers the released encoder's gradients
// flow through, e.g. "the released encoder's gradients flow through layers
// 4–6, trained on private data without noise".
func flowReason(r core.LayerRange) string {
	var free []int
	for l := 1; l <= numLayers; l++ {
		if !r.Contains(l) {
			free = append(free, l)
		}
	}
	s := "the released encoder's gradients flow through " + layerList(free) + ", trained on private data without noise"
	var enc []int
	for _, l := range free {
		if l <= 3 {
			enc = append(enc, l)
		}
	}
	if len(enc) > 0 {
		s += "; " + layerList(enc) + " of the released encoder itself " + map[bool]string{true: "is", false: "are"}[len(enc) == 1] + " trained without noise"
	}
	return s
}

// layerList formats layer numbers as "layer 3", "layers 4–6" or
// "layers 1, 5–6".
func layerList(ls []int) string {
	var parts []string
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ls[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", ls[i], ls[j]))
		}
		i = j + 1
	}
	if len(ls) == 1 {
		return "layer " + parts[0]
	}
	return "layers " + strings.Join(parts, ", ")
}

// fmtG formats a float compactly.
func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
