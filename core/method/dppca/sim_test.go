package dppca

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/sweep"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/fixture/baseline"
)

// simSets are the fresh simulations dppca's design choices are compared on
// (never the shared sets' labels): the Splatter-style simulator behind
// builtin:default with other seeds and shapes — a large set with 8 types
// of unequal size and few marker genes among many (a whole transcriptome),
// a large set with 14 types, a small one of 300 cells, and (on demand) a
// whole transcriptome of 20,000 genes.
func simSets() map[string]datasets.SimConfig {
	mk := func(cells, genes int, probs []float64, de float64, seed uint64) datasets.SimConfig {
		c := datasets.DefaultSimConfig(cells, genes, len(probs))
		for g, p := range probs {
			c.Groups[g].Prob, c.Groups[g].DEProb = p, de
		}
		c.Dropout, c.DropoutMid, c.DropoutShape = true, -1, -1.5
		c.Seed = seed
		return c
	}
	k14 := make([]float64, 14)
	for g := range k14 {
		k14[g] = 1 / float64(g+2)
	}
	return map[string]datasets.SimConfig{
		"sim8":     mk(3000, 4000, []float64{0.25, 0.18, 0.15, 0.12, 0.1, 0.08, 0.07, 0.05}, 0.1, 11),
		"sim14":    mk(2500, 4000, k14, 0.1, 12),
		"simsmall": mk(300, 2000, []float64{1, 1, 1, 1, 1, 1, 1, 1}, 0.1, 13),
		// a whole transcriptome: 20,000 genes, as mouse_bladder_2100 or
		// pollen (only with DPSCOPE_DPPCA_SIM=simwide).
		"simwide": mk(2000, 20000, k14, 0.1, 14),
	}
}

// hkSet describes a simulation built like mouse_bladder_2100's failure
// (issue 16.2), fixed before any selection rule was measured on it: a
// Splatter part of cell types whose genes have moderate means (no
// high-expression outliers) and a part of Housekeeping genes of high mean
// (gamma 2, 0.02: about fifty times a typical gene of the first part), a
// larger biological variation (BCV 0.3) and no type difference, drawn for
// the same cells and taking HKShare of their counts (ambient or
// housekeeping genes: every cell has them, and their share of a cell
// varies with the cell, not its type). The top genes by mean are then the
// housekeeping ones.
type hkSet struct {
	Types   datasets.SimConfig
	HK      int
	HKShare float64
}

// hkSets are the simulations built like the failure: 2,000 cells of 14
// types on a whole transcriptome with 500 housekeeping genes holding 40 %
// of the counts, and 3,000 cells of 8 types on 4,000 genes with 300
// holding 30 %, with fewer, stronger markers than in simSets (DE
// probability 0.05, factor log-normal(0.5, 0.5), libraries of about
// e⁸ ≈ 3,000 counts), and simhk8w, simhk8 with more, weaker markers (0.1,
// log-normal(0.3, 0.5), about 1,800 counts). The strength of the markers
// was set so that B1 is about mouse_bladder_2100's 0.6 (measured on
// simhk8: 0.57 and 0.59; the first try, 0.05 and log-normal(0.3, 0.5),
// gave B1 0.15, a set nothing clusters); the nonprivate ARIs of mean,
// excess and spread were seen while doing so (0.25/0.52/0.29 and
// 0.26/0.30/0.15 at h = 1,000, seed 0).
func hkSets() map[string]hkSet {
	mk := func(cells, genes int, probs []float64, seed uint64) datasets.SimConfig {
		c := datasets.DefaultSimConfig(cells, genes, len(probs))
		for g, p := range probs {
			c.Groups[g].Prob, c.Groups[g].DEProb = p, 0.05
			c.Groups[g].DEFacLoc, c.Groups[g].DEFacScale = 0.5, 0.5
		}
		c.OutlierProb = 0
		c.LibLoc = 8
		c.Dropout, c.DropoutMid, c.DropoutShape = true, -1, -1.5
		c.Seed = seed
		return c
	}
	k14 := make([]float64, 14)
	for g := range k14 {
		k14[g] = 1 / float64(g+2)
	}
	k8 := []float64{0.25, 0.18, 0.15, 0.12, 0.1, 0.08, 0.07, 0.05}
	weak := mk(3000, 4000, k8, 22)
	weak.LibLoc = 7.5
	for g := range weak.Groups {
		weak.Groups[g].DEProb, weak.Groups[g].DEFacLoc = 0.1, 0.3
	}
	// 14 types on 18,000 genes need more markers for B1 ≈ 0.6 (0.05 and
	// log-normal(0.5, 0.5) gave B1 0.12; 0.1 and log-normal(0.6, 0.5) give
	// 0.67, where mean, excess and spread gave 0.33/0.64/0.51 without
	// noise, seed 0).
	strong14 := mk(2000, 18000, k14, 21)
	for g := range strong14.Groups {
		strong14.Groups[g].DEProb, strong14.Groups[g].DEFacLoc = 0.1, 0.6
	}
	// simmb has mouse_bladder_2100's public shape (ninth session, fixed
	// before any variant was measured on it): 2,100 cells, 16 classes,
	// 20,670 genes, and its label-free count facts — a median library of
	// about 1,600 counts (exp(6.78) ≈ 880 in the types part, which holds
	// 55 % of them) and about 47 % of the counts in its top 300 genes and
	// 55 % in its top 500 (here 500 housekeeping genes holding 45 %). Class
	// sizes are not public facts: the 1/(g+2) profile of the other 14-type
	// sets. Markers: DE probability 0.1, log-normal(1.4, 0.5), set for B1
	// about 0.7 (log-normal(0.6, 0.5) gave B1 0.03, (1.0, 0.5) 0.28; seeds
	// 0–4). With the noise its top 4h genes by mean are the 500
	// housekeeping ones at ε ≤ 16, so every mean-based rule scores 0 on it
	// there (a limit of this design, like simhk14's).
	k16 := make([]float64, 16)
	for g := range k16 {
		k16[g] = 1 / float64(g+2)
	}
	mb := mk(2100, 20170, k16, 23)
	mb.LibLoc = 6.78
	for g := range mb.Groups {
		mb.Groups[g].DEProb, mb.Groups[g].DEFacLoc = 0.1, 1.4
	}
	return map[string]hkSet{
		"simmb":   {mb, 500, 0.45},
		"simhk14": {strong14, 500, 0.4},
		"simhk8":  {mk(3000, 4000, k8, 22), 300, 0.3},
		"simhk8w": {weak, 300, 0.3},
	}
}

// simulateHK draws an hkSet: its types part, its housekeeping part (one
// group, no differential expression, library log-mean shifted so it holds
// HKShare of the counts on average) and their genes side by side.
func simulateHK(s hkSet) (*datasets.Dataset, error) {
	d, _, err := datasets.Simulate(s.Types)
	if err != nil {
		return nil, err
	}
	c := datasets.DefaultSimConfig(s.Types.Cells, s.HK, 1)
	c.Groups[0].DEProb = 0
	c.MeanShape, c.MeanRate, c.OutlierProb = 2, 0.02, 0
	c.BCVCommon = 0.3
	c.LibLoc = s.Types.LibLoc + math.Log(s.HKShare/(1-s.HKShare))
	c.Seed = s.Types.Seed + 1000
	hk, _, err := datasets.Simulate(c)
	if err != nil {
		return nil, err
	}
	a, b := d.X, hk.X
	x := &datasets.CSR{Rows: a.Rows, Cols: a.Cols + b.Cols, Indptr: make([]int64, a.Rows+1)}
	for i := range a.Rows {
		ac, av := a.Row(i)
		bc, bv := b.Row(i)
		x.Indices = append(x.Indices, ac...)
		x.Data = append(x.Data, av...)
		for k, j := range bc {
			x.Indices = append(x.Indices, j+int32(a.Cols))
			x.Data = append(x.Data, bv[k])
		}
		x.Indptr[i+1] = int64(len(x.Data))
	}
	out := *d
	out.X = x
	out.GeneIDs = append(append([]string(nil), d.GeneIDs...), prefixed("hk_", hk.GeneIDs)...)
	out.GeneNames = out.GeneIDs
	return &out, nil
}

func prefixed(p string, v []string) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = p + s
	}
	return out
}

// TestSimDesign compares option sets on simSets and hkSets (mean ARI of
// seeds 0–4 against the simulation's truth). Long: DPSCOPE_DPPCA_SIM=1
// (sim8, sim14, simsmall) or a comma list of sims (simwide and the hk sets
// simhk14, simhk8, simhk8w, simmb only by name); DPSCOPE_DPPCA_VARIANTS=opts;opts
// with opts k=v,k=v (empty: the defaults; merge=on applies mergeRule
// after the release, merge=kmeans|ward are dppca's option); DPSCOPE_DPPCA_EPS=e,e,… the ε
// (0: without noise); DPSCOPE_DPPCA_FRESH=1 fresh draws: simulation seeds
// +100 and noise seeds 5–9 instead of 0–4 (for a rule stated after the
// earlier ones were measured on those); DPSCOPE_DPPCA_FRESH=2 seeds +200
// and noise seeds 10–14 (the ninth session's rules, whose diagnostics
// used the FRESH=1 draws); DPSCOPE_DPPCA_FRESH=3 seeds +300 and noise
// seeds 15–19 (dppca8's target=median rule); DPSCOPE_DPPCA_FRESH=4 seeds
// +500 and noise seeds 25–29 (dppca9's depth cap; TestDipDiag used +400,
// 20–24); DPSCOPE_DPPCA_FRESH=5 seeds +600 and noise seeds 30–34 (the
// seventh attempt: the on/off sets simonoffmb, simonoffpbmc, by name,
// and its rule); DPSCOPE_DPPCA_FRESH=6 seeds +800 and noise seeds 35–39
// (dppca11's seedgrid=auto rule); DPSCOPE_DPPCA_FRESH=7 seeds +900 and
// noise seeds 40–44 (dppca12's seedgrid=select rule);
// DPSCOPE_DPPCA_FRESH=8 seeds +1000 and noise seeds 45–49 (dppca13's
// clip=auto rule; its design looked at FRESH=7 only);
// DPSCOPE_DPPCA_FRESH=9 seeds +1100 and noise seeds 50–54 (dppca14's
// clip=subspace rule); DPSCOPE_DPPCA_FRESH=10 seeds +1200 and noise
// seeds 55–59 (dppca15's over-clustering threshold and Ward merge; its
// threshold was set on the base draws, TestOverThreshold);
// DPSCOPE_DPPCA_FRESH=11 seeds +1300 and noise seeds 60–64 (dppca16's
// genes=auto scale; its scale was set on the base draws,
// TestGenesScale); DPSCOPE_DPPCA_FRESH=12 seeds +1400 and noise seeds
// 65–69 (the same scale judged again under the twelfth session's
// corrected rule, whose loss guard is per family); DPSCOPE_DPPCA_FRESH=13
// seeds +1500 and noise seeds 70–74 (the fifteenth attempt: rule G12
// with the lineage family simlin12, lineage_test.go);
// DPSCOPE_DPPCA_FRESH=14 seeds +1600 and noise seeds 75–79 (the sixteenth
// attempt: rule G13, whose R is realFacts' families);
// DPSCOPE_DPPCA_FRESH=15 seeds +1700 and noise seeds 80–84 (the
// seventeenth attempt: under=auto, under_test.go);
// DPSCOPE_DPPCA_FRESH=16 seeds +1800 and noise seeds 85–89 (the
// eighteenth attempt: avg=5, rule G15); DPSCOPE_DPPCA_FRESH=17 seeds
// +1900 and noise seeds 90–94 (the nineteenth attempt: merge=overlap,
// rule G16); DPSCOPE_DPPCA_FRESH=18 seeds +2000 and noise seeds 95–99
// (the twentieth attempt: floor, rule G17); DPSCOPE_DPPCA_FRESH=19 seeds
// +2100 and noise seeds 100–104 (the twenty-first attempt: merge=early,
// rule G18); DPSCOPE_DPPCA_FRESH=20 seeds +2200 and noise seeds 105–109
// (the twenty-second attempt: offset=dir, rule G19, with simpollen);
// DPSCOPE_DPPCA_FRESH=21 seeds +2300 and noise seeds 110–114 (the
// twenty-third attempt: prior=counts, rule G20); DPSCOPE_DPPCA_FRESH=d25
// seeds +2450 and noise seeds 150–154 (its development draws, and the
// twenty-fourth and twenty-fifth attempts': choose=objective, genesmin);
// DPSCOPE_DPPCA_FRESH=d31 seeds +2600 and noise seeds 160–164 (the
// twenty-ninth attempt's second development draws: mergestarts);
// DPSCOPE_DPPCA_FRESH=23a seeds +2700 and noise seeds 230–234 and
// DPSCOPE_DPPCA_FRESH=23b seeds +2800 and noise seeds 240–244 (its rule
// G23, judged on both pooled).
// Under offset=dir a row's cells also show [offF/R]: the seeds whose
// switch fired and whose direction was removed. The shallow dipSets (sim16, sim16low, sim14low) and
// the nested nestSets (simnest8, simnest14) are named as well. Each variant after the first is
// also compared with the first, paired by seed: the mean difference ± its
// standard error, starred beyond seed noise (|difference| > 2 SE,
// DECISIONS.md).
func TestSimDesign(t *testing.T) {
	env := os.Getenv("DPSCOPE_DPPCA_SIM")
	if env == "" {
		t.Skip("long: set DPSCOPE_DPPCA_SIM=1 to compare designs on fresh simulations")
	}
	sets := simSets()
	names := []string{"sim8", "sim14", "simsmall"}
	if env != "1" {
		names = strings.Split(env, ",")
	}
	variants := strings.Split(os.Getenv("DPSCOPE_DPPCA_VARIANTS"), ";")
	defer func() { planTweak, postRelease = nil, nil }()
	hks := hkSets()
	// Each set of fresh draws: its simulation seed shift and first noise
	// seed (README, "dppca and dcan-sound on fresh simulations").
	fresh := map[string][2]uint64{
		"1": {100, 5}, "2": {200, 10}, "3": {300, 15}, "4": {500, 25},
		"5": {600, 30}, "6": {800, 35}, "7": {900, 40}, "8": {1000, 45},
		"9": {1100, 50}, "10": {1200, 55}, "11": {1300, 60}, "12": {1400, 65},
		"13": {1500, 70}, "14": {1600, 75}, "15": {1700, 80}, "16": {1800, 85},
		"17": {1900, 90}, "18": {2000, 95}, "19": {2100, 100},
		"20": {2200, 105}, "21": {2300, 110},
		// development draws of the twenty-third to twenty-fifth attempts
		// (prior=counts, choose=objective, genesmin; no rule judges them)
		"d25": {2450, 150},
		// the twenty-ninth attempt's second development draws (mergestarts;
		// no rule judges them) and its rule G23's fresh draws
		"d31": {2600, 160}, "23a": {2700, 230}, "23b": {2800, 240},
	}[os.Getenv("DPSCOPE_DPPCA_FRESH")]
	simShift, seed0 := fresh[0], fresh[1]
	ons := onoffSets()
	dips := dipSets()
	nests := nestSets()
	lins := lineageSets()
	for _, name := range names {
		var d *datasets.Dataset
		var err error
		if ls, ok := lins[name]; ok {
			ls.Types.Seed += simShift
			d, err = simulateLineage(ls)
		} else if ns, ok := nests[name]; ok {
			ns.Types.Seed += simShift
			d, err = simulateNest(ns)
		} else if hs, ok := hks[name]; ok {
			hs.Types.Seed += simShift
			d, err = simulateHK(hs)
		} else if on, ok := ons[name]; ok {
			on.Types.Seed += simShift
			d, err = simulateOnOff(on)
		} else {
			c, ok := sets[name]
			if !ok {
				c, ok = dips[name]
			}
			if !ok {
				c, ok = underSets()[name]
			}
			if b, isB := strings.CutPrefix(name, "builtin:"); !ok && isB {
				// a family of assets/simulations (builtin:pollenshape)
				spec, err := datasets.GetBuiltinSpec(b)
				if err != nil {
					t.Fatal(err)
				}
				c, ok = spec.SimConfig, true
			}
			if !ok {
				t.Fatalf("no simulation %q", name)
			}
			c.Seed += simShift
			d, _, err = datasets.Simulate(c)
		}
		if err != nil {
			t.Fatal(err)
		}
		if os.Getenv("DPSCOPE_DPPCA_B1") == "1" {
			// B1 on the simulation (scanpy preprocessing, PCA(50),
			// k-means with 10 inits): the bar the no-noise column is read
			// against.
			var b []float64
			for s := seed0; s < seed0+5; s++ {
				b = append(b, baseline.B1(t, d, s))
			}
			m, sd := sweep.Moments(b)
			t.Logf("%-8s B1 %.3f±%.3f", name, m, sd)
		}
		var first [][]float64      // the first variant's ARIs, by ε then seed
		var firstHR [][][4]float64 // the first variant's (h, R, over, centres), by ε then seed
		for vi, v := range variants {
			opts := map[string]string{}
			addOptions(opts, v)
			exact := opts["exact"]
			delete(opts, "exact")
			planTweak = exactTweak(t, exact)
			postRelease = nil
			if opts["merge"] == "on" {
				postRelease = func(out *Outcome, rng *rand.Rand) { mergeRule(out, rng) }
				delete(opts, "merge") // merge=kmeans|ward are dppca's own
			}
			o, src := optionSource(t, d, opts)
			row := fmt.Sprintf("%-8s %-40s", name, v)
			epsList := fixture.EnvFloats(t, "DPSCOPE_DPPCA_EPS", append(append([]float64(nil), goalEps...), 0))
			paired := ""
			for ei, eps := range epsList {
				var aris []float64
				ps, fired := 0, 0 // fired: seeds that over-clustered
				rho, qs, cs := 0.0, 0.0, 0.0
				var sel [2]float64  // select=leverage: mean of the first two eigenvalue/edge ratios
				var hr [][4]float64 // each seed's (h, R, over-clustering: 0 none, 1 kmeans merge, 2 ward; centres)
				hs := 0.0           // the mean h
				ks := 0.0           // the mean number of centres (under=auto)
				offF, offR := 0, 0  // offset=dir: seeds whose direction was released, and removed
				for s := seed0; s < seed0+5; s++ {
					a, out := releaseARI(t, src, eps > 0, eps, o, s)
					aris = append(aris, a)
					for k := range min(2, len(out.Matrix.SelectRatios)) {
						sel[k] += out.Matrix.SelectRatios[k] / 5
					}
					ps += len(out.Eigen)
					if o.Init == InitHistogram {
						// the seeding grid's components (3: the fixed grid)
						qs += float64(out.SeedDims) / 5
					}
					rho += centreNoise(out.Plan, out.Matrix.NoisyN, 2*src.K, out.Eigen) / 5
					cs += out.Plan.R / math.Sqrt(float64(out.Plan.H)) / 5
					hs += float64(out.Plan.H) / 5
					ov := 0.0
					if out.Over > 1 {
						ov = 1
						fired++
						if o.Merge == MergeWard {
							ov = 2
						}
					}
					hr = append(hr, [4]float64{float64(out.Plan.H), out.Plan.R, ov, float64(out.K)})
					ks += float64(out.K) / 5
					if out.Plan.Offset > 0 {
						offF++
					}
					if out.Matrix.OffsetRemoved {
						offR++
					}
				}
				m, sd := sweep.Moments(aris)
				row += fmt.Sprintf(" %.3f±%.3f(p%.0f,ρ%.2g,o%d)", m, sd, float64(ps)/5, rho, fired)
				if o.SeedGrid == SeedGridAuto || o.SeedGrid == SeedGridSelect {
					row += fmt.Sprintf("[q%.1f]", qs)
				}
				if o.clipAuto() {
					// the mean clip factor c = R/√h the releases chose
					row += fmt.Sprintf("[c%.2f]", cs)
				}
				if o.clipAuto() {
					// the mean gene count the releases kept
					row += fmt.Sprintf("[h%.0f]", hs)
				}
				if o.Under > 0 || o.UnderCount > 0 {
					// the mean number of centres under=auto (or count:F) kept
					row += fmt.Sprintf("[k%.1f]", ks)
				}
				if o.Offset == OffsetDir {
					// offset=dir: seeds of 5 whose prediction fired (the
					// direction released) and whose direction was removed
					row += fmt.Sprintf("[off%d/%d]", offF, offR)
				}
				if sel[0] > 0 {
					// the candidates' covariance: its first two released
					// eigenvalues over its noise edge (select=leverage)
					row += fmt.Sprintf("[λ/edge %.2f,%.2f]", sel[0], sel[1])
				}
				if vi == 0 {
					first = append(first, aris)
					firstHR = append(firstHR, hr)
					continue
				}
				// on how many seeds the release's (h, R) or its
				// over-clustering (none, or over-clustered and merged by
				// k-means or by Ward) is not the first variant's: a
				// difference only counts as the rule's where it moved
				// them (dppca14's criterion, dppca15's over and merge)
				moved := 0
				for k := range hr {
					if hr[k] != firstHR[ei][k] {
						moved++
					}
				}
				diff := make([]float64, len(aris))
				for k := range aris {
					diff[k] = aris[k] - first[ei][k]
				}
				dm, dsd := sweep.Moments(diff)
				se := dsd / math.Sqrt(float64(len(diff)))
				star := ""
				if math.Abs(dm) > 2*se {
					star = "*"
				}
				paired += fmt.Sprintf(" ε%g %+.3f±%.3f%s(moved %d/%d)", eps, dm, se, star, moved, len(hr))
			}
			t.Log(row)
			if paired != "" {
				t.Logf("%-8s %-40s paired vs %q:%s", name, v, variants[0], paired)
			}
		}
	}
}

// exactTweak returns the plan edit that zeroes the noise of the releases
// named in list ("+"-separated: rank, stats, pca, kmeans), nil for none.
func exactTweak(t *testing.T, list string) func(*Plan) {
	if list == "" {
		return nil
	}
	parts := strings.Split(list, "+")
	for _, p := range parts {
		switch p {
		case "rank", "stats", "pca", "kmeans", "choose", "chooseshare":
		default:
			t.Fatalf("exact=%s: %q is not rank, stats, pca, kmeans, choose or chooseshare", list, p)
		}
	}
	return func(pl *Plan) {
		for _, p := range parts {
			switch p {
			case "rank":
				pl.Rank = 0
			case "stats":
				pl.Mean, pl.Mean2, pl.Spread = 0, 0, 0
			case "pca":
				pl.PCA = 0
			case "kmeans":
				pl.Seed, pl.Sums, pl.Counts = 0, 0, 0
			case "choose":
				// choose=objective's gap without noise (diagnosis: the
				// share is still taken from the k-means)
				if pl.ChooseMu > 0 {
					pl.ChooseMu = math.Inf(1)
				}
			case "chooseshare":
				// the k-means share choose=objective leaves, without the
				// choice (diagnosis: the cost of the share alone)
				pl.km -= ShareChoose / float64(pl.T)
				pl.kmNoOffset -= ShareChoose / float64(pl.T)
			}
		}
	}
}
