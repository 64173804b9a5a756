package cluster

import (
	"cmp"
	"errors"
	"math"

	"github.com/dpscope/dpscope/internal/errkind"
)

// ErrInvalidConfig is wrapped by every error about a configuration value.
var ErrInvalidConfig = errors.New("invalid configuration")

// ErrInvalidData is wrapped by every error about input data: shape,
// non-finite values, or more clusters than rows.
var ErrInvalidData = errors.New("invalid data")

// Defaults of KMeansConfig, as in scikit-learn 1.2's KMeans.
const (
	DefaultNInit   = 10
	DefaultMaxIter = 300
	DefaultTol     = 1e-4
)

// KMeansConfig configures KMeans. The zero value of every optional field
// selects its default. A KMeansConfig is a plain value and is safe to share.
type KMeansConfig struct {
	// K is the number of clusters. Required: 1 ≤ K ≤ n.
	K int
	// NInit is the number of k-means++ restarts; the one with the lowest
	// inertia is returned. Defaults to DefaultNInit (10). Ignored when
	// Centroids is set (a single run).
	NInit int
	// MaxIter is the maximum number of Lloyd iterations of one restart.
	// Defaults to DefaultMaxIter (300).
	MaxIter int
	// Tol is the convergence tolerance, relative to the data: a restart stops
	// when the squared centre shift Σ_j ‖c_j' − c_j‖² is at most
	// Tol · mean_t Var(x_·t) (scikit-learn's rule), or when no label changed.
	// Defaults to DefaultTol (1e-4). To stop only on unchanged labels, set a
	// tiny positive value such as 1e-300.
	Tol float64
	// Seed seeds the restarts: restart r draws from rand.NewPCG(Seed, r).
	Seed uint64
	// Centroids, when non-nil, are the K×d initial centroids (row-major),
	// used instead of k-means++ seeding.
	Centroids []float64
	// Workers bounds the number of restarts run at once. Defaults to
	// runtime.GOMAXPROCS(0). The result does not depend on it.
	Workers int
}

// Validate checks the fields that do not depend on the data: K ≥ 1 and
// NInit, MaxIter, Tol and Workers non-negative (zero meaning the default),
// Tol finite. The error wraps ErrInvalidConfig.
func (c KMeansConfig) Validate() error {
	switch {
	case c.K < 1:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: K is %d, must be ≥ 1", c.K)
	case c.NInit < 0:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: NInit is %d, must be ≥ 0 (0 for %d)", c.NInit, DefaultNInit)
	case c.MaxIter < 0:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: MaxIter is %d, must be ≥ 0 (0 for %d)", c.MaxIter, DefaultMaxIter)
	case !(c.Tol >= 0) || math.IsInf(c.Tol, 0):
		return errkind.Wrapf(ErrInvalidConfig, "cluster: Tol is %v, must be finite and ≥ 0 (0 for %v)", c.Tol, DefaultTol)
	case c.Workers < 0:
		return errkind.Wrapf(ErrInvalidConfig, "cluster: Workers is %d, must be ≥ 0 (0 for GOMAXPROCS)", c.Workers)
	}
	return nil
}

// ValidateData checks the configuration against n×d data x: Validate, then
// the shape of x, K ≤ n, finite values, and the shape and finiteness of
// Centroids if set. Data errors wrap ErrInvalidData.
func (c KMeansConfig) ValidateData(x []float64, n, d int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := checkMatrix("x", x, n, d); err != nil {
		return err
	}
	if c.K > n {
		return errkind.Wrapf(ErrInvalidData, "cluster: K is %d, must be ≤ n = %d", c.K, n)
	}
	if c.Centroids != nil {
		if err := checkMatrix("Centroids", c.Centroids, c.K, d); err != nil {
			return err
		}
	}
	return nil
}

// withDefaults returns c with every zero optional field set to its default.
func (c KMeansConfig) withDefaults() KMeansConfig {
	c.NInit = cmp.Or(c.NInit, DefaultNInit)
	c.MaxIter = cmp.Or(c.MaxIter, DefaultMaxIter)
	c.Tol = cmp.Or(c.Tol, DefaultTol)
	return c
}

// checkMatrix checks that x is an n×d row-major matrix with n, d ≥ 1 and
// finite entries; the error names the matrix and wraps ErrInvalidData.
func checkMatrix(name string, x []float64, n, d int) error {
	switch {
	case n < 1:
		return errkind.Wrapf(ErrInvalidData, "cluster: rows of %s is %d, must be ≥ 1", name, n)
	case d < 1:
		return errkind.Wrapf(ErrInvalidData, "cluster: columns of %s is %d, must be ≥ 1", name, d)
	case len(x) != n*d:
		return errkind.Wrapf(ErrInvalidData, "cluster: len(%s) is %d, must be %d×%d = %d", name, len(x), n, d, n*d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errkind.Wrapf(ErrInvalidData, "cluster: %s[%d, %d] is %v, must be finite", name, i/d, i%d, v)
		}
	}
	return nil
}
