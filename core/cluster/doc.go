// Package cluster implements k-means (non-private and differentially
// private), external and internal clustering metrics, and a deterministic
// PCA, all in float64.
//
// # Data layout
//
// Every function takes points as a row-major []float64 of n rows and d
// columns (x[i*d+j] is coordinate j of point i) together with n and d. Plain
// slices were chosen over gonum's mat.Dense because the engine's embeddings
// already live in flat slices (core/compute), a slice costs nothing to
// convert, and mat.NewDense(n, d, x) wraps it without copying whenever gonum
// is needed inside. Results are returned the same way.
//
// # k-means
//
// KMeans runs Lloyd's algorithm from k-means++ seeds (the greedy variant of
// scikit-learn, with 2+⌊ln k⌋ local trials per centre), NInit restarts in
// parallel; each restart r draws from rand.NewPCG(Seed, r), and the restart
// with the lowest inertia wins, ties going to the lowest r, so a result
// depends on the seed only and never on scheduling or GOMAXPROCS.
// See Arthur & Vassilvitskii (2007), https://dl.acm.org/doi/10.5555/1283383.1283494.
//
// DPKMeans is the noisy variant for dpscope's "sound" mode: each iteration
// releases per-cluster sums of L2-clipped rows and per-cluster counts through
// the Gaussian mechanism and reports every release as a GaussianRelease, so
// that a privacy accountant can compose them. Its data-independent
// initialisations (random points in the clipped ball, or given centroids)
// keep the whole output private; k-means++ seeding on private data does not.
//
// KMeans itself is not private: centroids computed from private data
// without noise are a release outside any privacy ledger, and DPKMeans with
// DPInitKMeansPlusPlus seeds from private rows, so its result is not
// private either (DPKMeansResult.Private reports it).
//
// # PCA
//
// PCA returns the top-k principal components and scores with a
// deterministic sign (largest-magnitude loading positive): an exact thin SVD
// for small shapes, and above PCAExactLimit a seeded block Krylov iteration
// run until the top-k Ritz residuals are below PCATol, so the same subspace
// to working precision (see PCA for the bounds); it reports its cycles and
// residual, and an error wrapping ErrPCANotConverged at PCAMaxCycles.
//
// # Speed and concurrency
//
// Matrix products (distances for Silhouette and NeighbourhoodPurity, PCA)
// go through gonum's blas64; the package's init registers core/compute's
// float64 backend there (compute.UseOpenBLAS64), so large products run on
// OpenBLAS when DPSCOPE_BLAS allows it. The functions are safe for concurrent use; they
// keep no state between calls, and their results do not depend on
// GOMAXPROCS.
//
// # Unknown labels
//
// Labels are arbitrary ints. A negative label means "unknown": a row whose
// label is negative in any labelling passed to a metric is excluded from that
// metric, as if it were not in the data (for Silhouette and
// NeighbourhoodPurity the row is neither scored nor used as a neighbour or a
// cluster member). Relabel a predicted "noise" cluster with a non-negative id
// if it should count.
//
// # Metrics
//
// ARI, NMI (arithmetic normalisation), AMI, Homogeneity, Completeness,
// FowlkesMallows, ACC (Hungarian matching) and PairJaccard follow
// scikit-learn 1.2.1's definitions, including its limit cases, and agree with
// its values to 1e-9 relative (tested against ../shared/refs/metrics).
// Silhouette and NeighbourhoodPurity are exact up to SilhouetteExactLimit
// scored rows and estimated on a fixed-seed sample above it.
package cluster
