// Package neighbors finds the references within a radius of a query, or its
// k nearest references, in R^D, exactly.
//
// Two routes answer the same questions with the same results:
//
//   - KDTree: gonum's spatial/kdtree, for a low ambient dimension and small
//     neighbourhoods, where the tree prunes most of the references;
//   - Brute: squared distances ‖q − y‖² = ‖q‖² − 2q·y + ‖y‖² from one
//     matrix product per block of queries (blas64 Dgemm/Dgemv on the
//     backend of core/compute, OpenBLAS when present), for a high dimension
//     or a bandwidth that covers a large share of the references, where a
//     tree prunes nothing.
//
// Auto picks the tree for D ≤ MaxKDTreeDim and the product otherwise (see
// Choose). The product form loses accuracy near the radius to cancellation;
// every reference whose product distance is within a rounding bound of the
// radius (or of the k-th distance) is re-measured directly as Σ(q_j − y_j)²,
// the same sum the tree and a naive double loop use, so the neighbour sets
// are exact: the tests compare them with a double loop.
//
// The returned squared distances are the product ones (relative error about
// D·2⁻⁵² of ‖q − μ‖² + ‖y − μ‖², μ the mean of the references) except for
// the re-measured ones; they are meant for kernel weights, not for ties.
package neighbors
