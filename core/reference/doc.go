// Package reference computes the reference lines every trade-off chart is
// drawn against: B1, non-private k-means (10 restarts) on the top 50
// principal components of the same preprocessed matrix a method trains on.
//
// B1 touches the private data without noise: it is a reference by
// construction, never a release covered by any guarantee, and every face
// labels it so. It is deterministic for a matrix, so it is cached on disk
// by the matrix's content hash (see Cache) and computed once per data set
// and preprocessing.
//
// A method's null line (Cache.Null) keeps each seed's ARI, so a private
// result is judged against it seed by seed, as DECISIONS defines "beyond
// seed noise": one run through its settings at the null's seeds
// (Cache.Self, Verdict), a sweep's point over the seeds it shares with
// the null (Judge, PairedBySeed). Fewer than two shared seeds leave the
// unpaired test, NoBetter.
package reference
