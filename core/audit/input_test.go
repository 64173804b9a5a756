package audit

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestInputCanariesDesign(t *testing.T) {
	pool := RarestGenes([]float64{5, 0, 3, 0, 9, 1, 2, 8, 7, 4, 6, 0}, 9)
	if want := []int{1, 3, 11, 5, 6, 2, 9, 0, 10}; !slices.Equal(pool, want) {
		t.Fatalf("RarestGenes = %v, want %v (smallest total first, ties to the lower index)", pool, want)
	}
	// 3 canaries × 3 genes fit the pool of 9: disjoint signatures.
	c, err := NewInputCanaries(InputConfig{Canaries: 3, Cells: 30, Pool: pool, GenesPer: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Disjoint() || c.Len() != 3 {
		t.Errorf("3 canaries of 3 genes from 9: disjoint %v, len %d; want disjoint, 3", c.Disjoint(), c.Len())
	}
	for j := range c.Len() {
		g := c.Genes(j)
		if len(g) != 3 || !slices.IsSorted(g) {
			t.Errorf("canary %d genes %v, want 3 sorted", j, g)
		}
		for _, x := range g {
			if !slices.Contains(pool, x) {
				t.Errorf("canary %d gene %d is not in the pool", j, x)
			}
		}
	}
	// Too small a pool: signatures drawn independently, still s distinct
	// genes each.
	c, err = NewInputCanaries(InputConfig{Canaries: 10, Cells: 100, Pool: pool[:4], GenesPer: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if c.Disjoint() {
		t.Error("10 canaries of 3 genes from 4 reported disjoint")
	}
	for j := range c.Len() {
		if g := c.Genes(j); len(slices.Compact(g)) != 3 {
			t.Errorf("canary %d genes %v, want 3 distinct", j, g)
		}
	}
}

// TestInputCanariesInclusion: about half of many canaries are included
// (a binomial(2000, ½) lies within ±5 sd, 1000 ± 112, with probability
// 1 − 6·10⁻⁷), and the same seed gives the same draw.
func TestInputCanariesInclusion(t *testing.T) {
	pool := make([]int, 2000)
	for j := range pool {
		pool[j] = j
	}
	cfg := InputConfig{Canaries: 2000, Cells: 20000, Pool: pool, GenesPer: 1, Seed: 3}
	a, _ := NewInputCanaries(cfg)
	b, _ := NewInputCanaries(cfg)
	in := 0
	for _, x := range a.Included() {
		if x {
			in++
		}
	}
	if in < 888 || in > 1112 {
		t.Errorf("%d of 2000 included, want about half", in)
	}
	if !slices.Equal(a.Included(), b.Included()) || !slices.Equal(a.Genes(5), b.Genes(5)) {
		t.Error("the same seed drew different canaries")
	}
	// Perfect scores: every guess right, a bound near the ceiling.
	scores := make([]float64, 2000)
	for j, x := range a.Included() {
		if x {
			scores[j] = 1
		}
	}
	res, err := a.Audit(scores, 1e-5, 0.05, "test view")
	if err != nil {
		t.Fatal(err)
	}
	if res.EpsilonLower < 4 || !strings.Contains(res.Setting, "input canaries (2000 synthetic cells, each on 1 rare gene of its own,") || !strings.Contains(res.Setting, "test view") {
		t.Errorf("perfect input audit = %+v, want a bound ≥ 4 and the setting naming input canaries and the view", res)
	}
}

func TestInputConfigValidate(t *testing.T) {
	ok := InputConfig{Canaries: 10, Cells: 100, Pool: []int{1, 2, 3}, GenesPer: 2}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for name, mod := range map[string]func(*InputConfig){
		"no canaries":        func(c *InputConfig) { c.Canaries = 0 },
		"over 10 % of cells": func(c *InputConfig) { c.Canaries = 11 },
		"no genes per":       func(c *InputConfig) { c.GenesPer = 0 },
		"pool too small":     func(c *InputConfig) { c.GenesPer = 4 },
	} {
		c := ok
		mod(&c)
		if _, err := NewInputCanaries(c); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		}
	}
	if MaxInputCanaries(99) != 9 || MaxInputCanaries(5) != 0 || MaxInputCanaries(-3) != 0 {
		t.Errorf("MaxInputCanaries(99, 5, -3) = %d, %d, %d; want 9, 0, 0", MaxInputCanaries(99), MaxInputCanaries(5), MaxInputCanaries(-3))
	}
}
