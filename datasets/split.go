package datasets

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/internal/errkind"
)

// ErrBadSplit is wrapped by every error about a client split's
// configuration or its input.
var ErrBadSplit = errors.New("datasets: invalid client split")

// SplitKind is the way cells are divided among federated clients.
type SplitKind int

// The split kinds. See NewSplit for the exact rules.
const (
	// SplitIID deals every class's shuffled cells round-robin over the
	// clients, so every client holds about the same class proportions.
	SplitIID SplitKind = iota
	// SplitNonIID gives each client cells of S classes only (FedSC,
	// docs/METHODS.md §4).
	SplitNonIID
	// SplitDirichlet divides each class among the clients in proportions
	// drawn from Dirichlet(α·1_K), the usual label-skew benchmark
	// (Hsu, Qi & Brown 2019, https://arxiv.org/abs/1909.06335).
	SplitDirichlet
	// SplitEqual cuts one random permutation of all cells into K parts of
	// equal size, as PPML-Omics does; the remainder N mod K goes one cell
	// each to the first clients.
	SplitEqual
)

var splitNames = [...]string{"iid", "noniid", "dirichlet", "equal"}

// String returns the kind's name as ParseSplit reads it.
func (k SplitKind) String() string {
	if k >= 0 && int(k) < len(splitNames) {
		return splitNames[k]
	}
	return fmt.Sprintf("SplitKind(%d)", int(k))
}

// SplitConfig configures NewSplit. Not every field applies to every kind.
type SplitConfig struct {
	// Kind is the split kind; the zero value is SplitIID.
	Kind SplitKind `json:"kind" toml:"kind"`
	// Clients is the number of clients K ≥ 1. Required.
	Clients int `json:"clients" toml:"clients"`
	// ClassesPerClient is s, the number of classes each client holds under
	// SplitNonIID (1 ≤ s ≤ number of classes). Required for SplitNonIID.
	ClassesPerClient int `json:"classes_per_client" toml:"classes_per_client"`
	// Alpha is the Dirichlet concentration α > 0 of SplitDirichlet: small α
	// gives each class to few clients, large α approaches IID. Required for
	// SplitDirichlet.
	Alpha float64 `json:"alpha" toml:"alpha"`
	// Seed makes the split reproducible: the same labels, config and seed
	// always give the same split.
	Seed uint64 `json:"seed" toml:"seed"`
}

// String writes the split as ParseSplit reads it, e.g. "noniid:2" or
// "dirichlet:0.5".
func (c SplitConfig) String() string {
	switch c.Kind {
	case SplitNonIID:
		return "noniid:" + strconv.Itoa(c.ClassesPerClient)
	case SplitDirichlet:
		return "dirichlet:" + strconv.FormatFloat(c.Alpha, 'g', -1, 64)
	}
	return c.Kind.String()
}

// ParseSplit reads a split kind with its parameter: "iid", "equal",
// "noniid:S" (S classes per client) or "dirichlet:ALPHA". Clients and Seed
// are left zero. It checks the syntax and the parameter's range.
func ParseSplit(s string) (SplitConfig, error) {
	name, arg, hasArg := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	var c SplitConfig
	switch name {
	case "iid", "equal":
		if hasArg {
			return c, splitErr("split", fmt.Sprintf("%q", s), name+" without a parameter")
		}
		c.Kind = SplitIID
		if name == "equal" {
			c.Kind = SplitEqual
		}
		return c, nil
	case "noniid", "non-iid":
		n, err := strconv.Atoi(arg)
		if !hasArg || err != nil || n < 1 {
			return c, splitErr("split", fmt.Sprintf("%q", s), "noniid:S with S ≥ 1 classes per client")
		}
		return SplitConfig{Kind: SplitNonIID, ClassesPerClient: n}, nil
	case "dirichlet":
		a, err := strconv.ParseFloat(arg, 64)
		if !hasArg || err != nil || !(a > 0) || math.IsInf(a, 0) {
			return c, splitErr("split", fmt.Sprintf("%q", s), "dirichlet:ALPHA with finite ALPHA > 0")
		}
		return SplitConfig{Kind: SplitDirichlet, Alpha: a}, nil
	}
	return c, splitErr("split", fmt.Sprintf("%q", s), "iid, equal, noniid:S or dirichlet:ALPHA")
}

// Validate checks the fields that apply to c.Kind, independently of the data.
func (c SplitConfig) Validate() error {
	if c.Kind < SplitIID || c.Kind > SplitEqual {
		return splitErr("split kind", int(c.Kind), "iid, noniid, dirichlet or equal")
	}
	if c.Clients < 1 {
		return splitErr("clients", c.Clients, "≥ 1")
	}
	switch c.Kind {
	case SplitNonIID:
		if c.ClassesPerClient < 1 {
			return splitErr("classes per client", c.ClassesPerClient, "≥ 1")
		}
	case SplitDirichlet:
		if math.IsNaN(c.Alpha) || math.IsInf(c.Alpha, 0) || c.Alpha <= 0 {
			return splitErr("alpha", c.Alpha, "finite and > 0")
		}
	}
	return nil
}

// splitErr formats "<name> is <value>, must be <constraint>" wrapping
// ErrBadSplit. No package prefix: name is the user's word (a method's
// split option, its clients), and the fed methods pass the sentence on.
func splitErr(name string, v any, constraint string) error {
	return errkind.Wrapf(ErrBadSplit, "%s is %v, must be %s", name, v, constraint)
}

// Split is a division of a data set's cells among K clients. Every cell
// belongs to exactly one client.
type Split struct {
	// Config is the configuration the split was drawn with.
	Config SplitConfig
	// Clients lists each client's cell indices (rows of the data set), in
	// increasing order.
	Clients [][]int
	// Counts holds, per client, its number of cells of each class
	// (K × number of classes); nil when the data have no labels.
	Counts [][]int
	// Notes says, in plain words, where the split departs from its rule:
	// a remainder spread over the first clients, classes no client took,
	// clients left with no cells.
	Notes []string
}

// Sizes returns the number of cells of each client.
func (s *Split) Sizes() []int {
	n := make([]int, len(s.Clients))
	for k, c := range s.Clients {
		n[k] = len(c)
	}
	return n
}

// Empty returns the (0-based) clients that hold no cell.
func (s *Split) Empty() []int {
	var e []int
	for k, c := range s.Clients {
		if len(c) == 0 {
			e = append(e, k)
		}
	}
	return e
}

// ClientClasses returns the classes client k holds at least one cell of,
// in increasing order; nil when the data have no labels.
func (s *Split) ClientClasses(k int) []int {
	if s.Counts == nil {
		return nil
	}
	var cl []int
	for c, n := range s.Counts[k] {
		if n > 0 {
			cl = append(cl, c)
		}
	}
	return cl
}

// Describe returns one line per client for display, e.g.
// "client 1: 250 cells, classes 1 2". Classes are named by names when it
// is long enough, by 1-based numbers otherwise.
func (s *Split) Describe(names []string) []string {
	out := make([]string, len(s.Clients))
	for k, c := range s.Clients {
		line := fmt.Sprintf("client %d: %d cells", k+1, len(c))
		if cl := s.ClientClasses(k); s.Counts != nil {
			parts := make([]string, len(cl))
			for i, j := range cl {
				parts[i] = strconv.Itoa(j + 1)
				if j < len(names) {
					parts[i] = names[j]
				}
			}
			line += fmt.Sprintf(", %d classes", len(cl))
			if len(cl) > 0 {
				line += " (" + strings.Join(parts, ", ") + ")"
			}
		}
		out[k] = line
	}
	return out
}
