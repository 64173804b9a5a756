package dcan

import (
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

func TestReadingStatus(t *testing.T) {
	c := Circumstances{Target: 8, Delta: 1e-5, K: 8, KFromLabels: true, KMeansIterations: 5, KMeansNoiseRatio: 3, EmbedClip: 4}
	raised := c
	raised.TargetRaised = true
	adaptive := c
	adaptive.Target, adaptive.AdaptiveNoFilter = 0, true
	secure := c
	secure.SecureNoise = true
	means := c
	means.GeneMeanInit = true
	for _, tc := range []struct {
		desc   string
		mode   core.Mode
		layers core.LayerRange
		c      Circumstances
		want   core.Guarantee
		reason string // a reason that must be present, verbatim
		absent string // a substring no reason may contain
	}{
		{"nonprivate", core.ModeNonPrivate, core.LayerRange{}, c, core.GuaranteeNone, "no privacy: DCAN trains on private data without clipping or noise", "formal"},
		{"paper 1-3", core.ModePaper, core.LayerRange{First: 1, Last: 3}, c, core.GuaranteeNone,
			"no formal guarantee: the released encoder's gradients flow through layers 4–6, trained on private data without noise", "formal (ε"},
		{"paper 1-2 leaves an encoder layer un-noised", core.ModePaper, core.LayerRange{First: 1, Last: 2}, c, core.GuaranteeNone,
			"no formal guarantee: the released encoder's gradients flow through layers 3–6, trained on private data without noise; layer 3 of the released encoder itself is trained without noise", ""},
		{"paper 2-4", core.ModePaper, core.LayerRange{First: 2, Last: 4}, c, core.GuaranteeNone,
			"no formal guarantee: the released encoder's gradients flow through layers 1, 5–6, trained on private data without noise; layer 1 of the released encoder itself is trained without noise", ""},
		{"paper 1-6 is DPE-DCAN", core.ModePaper, core.LayerRange{First: 1, Last: 6}, c, core.GuaranteePaperOnly,
			"release outside the ledger: the DEC target uses the cluster frequencies f_j = Σ_i q_ij of every cell without noise, so each cell's loss depends on all the others", "no formal guarantee"},
		{"sound", core.ModeSound, core.LayerRange{First: 1, Last: 6}, c, core.GuaranteeFormal,
			"departure from the paper: DEC cluster frequencies f_j are replaced by uniform 1/K, so each cell's target depends only on that cell and released quantities", "release outside the ledger"},
		{"sound with a raised target", core.ModeSound, core.LayerRange{First: 1, Last: 6}, raised, core.GuaranteeConditional,
			"condition: the privacy target was raised mid-run after outputs were seen; the filter assumes a target fixed in advance, so the audited ε holds only if that choice did not depend on the outputs", ""},
		{"sound with σ changed and no filter", core.ModeSound, core.LayerRange{First: 1, Last: 6}, adaptive, core.GuaranteeConditional,
			"condition: σ changed mid-run with no ε target, so no filter covers the adaptive choice; the audited ε holds only if the change did not depend on the outputs", ""},
		{"sound with secure noise", core.ModeSound, core.LayerRange{First: 1, Last: 6}, secure, core.GuaranteeFormal,
			"assumption: K = 8 is public (here it is the number of true classes)", "the seed is secret"},
		{"sound without the gene-mean initialisation", core.ModeSound, core.LayerRange{First: 1, Last: 6}, c, core.GuaranteeFormal,
			"assumption: the constants of preprocessing (gene selection, per-gene mean and sd, median size factor) are public; they are computed from the data without noise and are outside the guarantee", "initial bias"},
		{"sound with the gene-mean initialisation", core.ModeSound, core.LayerRange{First: 1, Last: 6}, means, core.GuaranteeFormal,
			"assumption: the constants of preprocessing (gene selection, per-gene mean and sd, median size factor) and the initial bias of the ZINB mean head (log of each gene's mean size-normalised count, a departure from the paper) are public; they are computed from the data without noise and are outside the guarantee", ""},
		{"paper 1-6 with the gene-mean initialisation", core.ModePaper, core.LayerRange{First: 1, Last: 6}, means, core.GuaranteePaperOnly,
			"release outside the ledger: preprocessing (gene selection, per-gene mean and sd, median size factor) and the initial bias of the ZINB mean head (log of each gene's mean size-normalised count, a departure from the paper) uses all cells without noise", ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, reasons := Reading(tc.mode, tc.layers, tc.c)
			if got != tc.want {
				t.Errorf("Reading(%s, %s) = %s, want %s", tc.mode, tc.layers, got, tc.want)
			}
			found := false
			for _, r := range reasons {
				found = found || r == tc.reason
				if tc.absent != "" && strings.Contains(r, tc.absent) {
					t.Errorf("reason %q contains %q", r, tc.absent)
				}
			}
			if !found {
				t.Errorf("reasons lack %q; got:\n%s", tc.reason, strings.Join(reasons, "\n"))
			}
			if !strings.HasPrefix(reasons[len(reasons)-1], "live metrics") {
				t.Errorf("last reason = %q, want the live-metrics caveat", reasons[len(reasons)-1])
			}
		})
	}
}

func TestLayerList(t *testing.T) {
	for _, tc := range []struct {
		desc string
		in   []int
		want string
	}{
		{"one", []int{3}, "layer 3"},
		{"run", []int{4, 5, 6}, "layers 4–6"},
		{"split", []int{1, 5, 6}, "layers 1, 5–6"},
		{"two singles", []int{1, 3}, "layers 1, 3"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := layerList(tc.in); got != tc.want {
				t.Errorf("layerList(%v) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
