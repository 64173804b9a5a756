package cluster

import "math"

// eps64 is the float64 machine epsilon, numpy's np.finfo(float64).eps, used
// where scikit-learn uses it.
const eps64 = 0x1p-52

// lgamma returns ln Γ(x) for x > 0.
func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// entropy returns the Shannon entropy in nats of the distribution with the
// given positive counts, H = −Σ (c/N)(ln c − ln N), and 0 for a single count
// (scikit-learn's entropy).
func entropy(counts []int64) float64 {
	if len(counts) <= 1 {
		return 0
	}
	var sum int64
	for _, c := range counts {
		sum += c
	}
	logSum := math.Log(float64(sum))
	var h float64
	for _, c := range counts {
		if c == 0 {
			continue
		}
		p := float64(c) / float64(sum)
		h -= p * (math.Log(float64(c)) - logSum)
	}
	return h
}

// MutualInfo returns the mutual information in nats of the two labellings of
// the table,
//
//	MI = Σ_ij (n_ij/N) ln(N·n_ij / (a_i·b_j)),
//
// with a_i, b_j the row and column sums, computed as scikit-learn's
// mutual_info_score (terms below machine epsilon dropped, result clipped at
// 0, and 0 when either labelling has a single group).
func (c *Contingency) MutualInfo() float64 {
	if c.Rows == 1 || c.Cols == 1 {
		return 0
	}
	n := float64(c.N)
	logN := math.Log(n)
	var mi float64
	for i := range c.Rows {
		for j := range c.Cols {
			v := c.Count[i*c.Cols+j]
			if v == 0 {
				continue
			}
			p := float64(v) / n
			logOuter := -math.Log(float64(c.RowSum[i]*c.ColSum[j])) + logN + logN
			t := p*(math.Log(float64(v))-logN) + p*logOuter
			if math.Abs(t) < eps64 {
				t = 0
			}
			mi += t
		}
	}
	return max(mi, 0)
}

// NMI returns the normalised mutual information with arithmetic-mean
// normalisation (scikit-learn's normalized_mutual_info_score default),
//
//	NMI = MI / ((H(true) + H(pred)) / 2),
//
// 1 when both labellings have a single group, and 0 when MI = 0 otherwise.
// Rows with a negative label are excluded; errors are those of
// NewContingency.
func NMI(labelsTrue, labelsPred []int) (float64, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return 0, err
	}
	return c.NMI(), nil
}

// NMI returns the normalised mutual information of the table (see the
// function NMI).
func (c *Contingency) NMI() float64 {
	if c.Rows == 1 && c.Cols == 1 {
		return 1
	}
	mi := c.MutualInfo()
	if mi == 0 {
		return 0
	}
	return mi / ((entropy(c.RowSum) + entropy(c.ColSum)) / 2)
}

// AMI returns the adjusted mutual information with arithmetic-mean
// normalisation (Vinh, Epps & Bailey 2010,
// https://jmlr.org/papers/v11/vinh10a.html; scikit-learn's
// adjusted_mutual_info_score),
//
//	AMI = (MI − E[MI]) / ((H(true) + H(pred))/2 − E[MI]),
//
// where E[MI] is the expected mutual information under the hypergeometric
// model of random labellings with the same group sizes (see ExpectedMutualInfo).
// It is 1 when both labellings have a single group; a denominator smaller in
// magnitude than machine epsilon is replaced by ±ε as scikit-learn does.
// Rows with a negative label are excluded; errors are those of
// NewContingency.
func AMI(labelsTrue, labelsPred []int) (float64, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return 0, err
	}
	return c.AMI(), nil
}

// AMI returns the adjusted mutual information of the table (see the function
// AMI).
func (c *Contingency) AMI() float64 {
	if c.Rows == 1 && c.Cols == 1 {
		return 1
	}
	mi := c.MutualInfo()
	emi := c.ExpectedMutualInfo()
	den := (entropy(c.RowSum)+entropy(c.ColSum))/2 - emi
	if den < 0 {
		den = min(den, -eps64)
	} else {
		den = max(den, eps64)
	}
	return (mi - emi) / den
}

// ExpectedMutualInfo returns E[MI], the expected mutual information of two
// random labellings with the table's row sums a_i and column sums b_j
// (Vinh, Epps & Bailey 2010, eq. 24a):
//
//	E[MI] = Σ_ij Σ_{n=max(1, a_i+b_j−N)}^{min(a_i, b_j)} (n/N) ln(N·n/(a_i·b_j))
//	        · a_i! b_j! (N−a_i)! (N−b_j)! / (N! n! (a_i−n)! (b_j−n)! (N−a_i−b_j+n)!),
//
// with the factorial ratio evaluated as exp of a sum of ln Γ terms, in the
// same order as scikit-learn's expected_mutual_information, so that it does
// not overflow. It is 0 when either labelling has a single group.
func (c *Contingency) ExpectedMutualInfo() float64 {
	if c.Rows == 1 || c.Cols == 1 {
		return 0
	}
	n := float64(c.N)
	var maxAB int64
	for _, v := range c.RowSum {
		maxAB = max(maxAB, v)
	}
	for _, v := range c.ColSum {
		maxAB = max(maxAB, v)
	}
	// Tables over nij = 0..maxAB; index 0 is never used.
	term1 := make([]float64, maxAB+1)
	logNnij := make([]float64, maxAB+1)
	glnNnij := make([]float64, maxAB+1)
	logN, glnN1 := math.Log(n), lgamma(n+1)
	for v := int64(1); v <= maxAB; v++ {
		f := float64(v)
		term1[v] = f / n
		logNnij[v] = logN + math.Log(f)
		glnNnij[v] = lgamma(f+1) + glnN1
	}
	var emi float64
	for i := range c.Rows {
		ai := c.RowSum[i]
		fa := float64(ai)
		logA, glnA, glnNa := math.Log(fa), lgamma(fa+1), lgamma(n-fa+1)
		for j := range c.Cols {
			bj := c.ColSum[j]
			fb := float64(bj)
			logB, glnB, glnNb := math.Log(fb), lgamma(fb+1), lgamma(n-fb+1)
			start := max(ai-c.N+bj, 1)
			end := min(ai, bj) + 1
			for v := start; v < end; v++ {
				fv := float64(v)
				term2 := logNnij[v] - logA - logB
				gln := glnA + glnB + glnNa + glnNb - glnNnij[v] -
					lgamma(fa-fv+1) - lgamma(fb-fv+1) - lgamma(n-fa-fb+fv+1)
				emi += term1[v] * term2 * math.Exp(gln)
			}
		}
	}
	return emi
}

// Homogeneity returns the homogeneity of labelsPred against labelsTrue
// (Rosenberg & Hirschberg 2007, https://aclanthology.org/D07-1043/),
// h = MI / H(true), and 1 when H(true) = 0: each cluster contains only
// members of a single class. Rows with a negative label are excluded; errors
// are those of NewContingency.
func Homogeneity(labelsTrue, labelsPred []int) (float64, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return 0, err
	}
	return c.Homogeneity(), nil
}

// Homogeneity returns the homogeneity of the table (see the function
// Homogeneity).
func (c *Contingency) Homogeneity() float64 {
	h := entropy(c.RowSum)
	if h == 0 {
		return 1
	}
	return c.MutualInfo() / h
}

// Completeness returns the completeness of labelsPred against labelsTrue
// (Rosenberg & Hirschberg 2007), c = MI / H(pred), and 1 when H(pred) = 0:
// all members of a class are in the same cluster. Rows with a negative label
// are excluded; errors are those of NewContingency.
func Completeness(labelsTrue, labelsPred []int) (float64, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return 0, err
	}
	return c.Completeness(), nil
}

// Completeness returns the completeness of the table (see the function
// Completeness).
func (c *Contingency) Completeness() float64 {
	h := entropy(c.ColSum)
	if h == 0 {
		return 1
	}
	return c.MutualInfo() / h
}
