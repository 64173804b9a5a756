package dppca

import (
	"errors"
	"testing"
)

// TestParseDefaults: no options give METHODS.md §5's design.
func TestParseDefaults(t *testing.T) {
	o := mustParse(t, nil)
	want := Options{P: 10, T: 5, Genes: 200, Split: 0.5, Clip: 0.5, Prep: PrepPrivate, Init: InitHistogram}
	if o != want {
		t.Errorf("defaults = %v, want %v", o, want)
	}
	o = mustParse(t, map[string]string{"p": "4", "T": "3", "genes": "50", "split": "0.6", "clip": "1", "prep": "public", "init": "kmeans++", "k": "7"})
	want = Options{P: 4, T: 3, Genes: 50, Split: 0.6, Clip: 1, Prep: PrepPublic, Init: InitKMeansPlusPlus, K: 7}
	if o != want {
		t.Errorf("parsed = %v, want %v", o, want)
	}
	// With public preprocessing the split may go up to 1 (exclusive).
	if _, err := Parse(map[string]string{"prep": "public", "init": "random-ball", "split": "0.95"}); err != nil {
		t.Errorf("prep=public init=random-ball split=0.95: %v", err)
	}
	if _, err := Parse(map[string]string{"split": "0.95"}); !errors.Is(err, ErrOptions) {
		t.Errorf("prep=private split=0.95: %v, want ErrOptions (0.15 goes to the preprocessing and seeding)", err)
	}
}

// FuzzParse: Parse never panics; what it accepts is valid and round-trips
// through String's values.
func FuzzParse(f *testing.F) {
	f.Add("p", "10", "split", "0.5")
	f.Add("genes", "3", "p", "4")
	f.Add("prep", "public", "clip", "1e300")
	f.Add("T", "-1", "k", "0")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		o, err := Parse(map[string]string{k1: v1, k2: v2})
		if err != nil {
			if !errors.Is(err, ErrOptions) {
				t.Fatalf("error %v does not wrap ErrOptions", err)
			}
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("Parse accepted %v, Validate says %v", o, err)
		}
		if o.P > o.Genes || o.Split <= 0 || o.Split >= 1 {
			t.Fatalf("accepted %v", o)
		}
	})
}
