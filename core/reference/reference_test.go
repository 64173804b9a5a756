package reference

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// shared opens and preprocesses a data set of ../shared/data; it fails in
// CI and skips elsewhere when the folder is missing.
func shared(t *testing.T, name string) *datasets.Preprocessed {
	t.Helper()
	dir := filepath.Join(fixture.SharedData(t), name)
	d, err := datasets.Open(dir, datasets.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := datasets.Preprocess(d, datasets.DefaultPreprocessConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestB1MatchesBaselines checks B1 against the B1 column of
// ../shared/data/BASELINES.md (scikit-learn, ten seeds); the tolerance
// covers the seed spread the table reports.
func TestB1MatchesBaselines(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ari, nmi float64
		tol      float64
	}{
		{"cellbench_celseq2_3cl", 1.000, 1.000, 0.01},
		{"biase", 0.853, 0.855, 0.06},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := B1(context.Background(), shared(t, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("B1 %s: ARI %.3f ± %.3f, NMI %.3f", tc.name, l.ARI, l.ARISD, l.NMI)
			if l.Seeds != B1Seeds {
				t.Errorf("seeds = %d, want %d", l.Seeds, B1Seeds)
			}
			if d := l.ARI - tc.ari; d < -tc.tol || d > tc.tol {
				t.Errorf("ARI = %.3f, want %.3f ± %.2f", l.ARI, tc.ari, tc.tol)
			}
			if d := l.NMI - tc.nmi; d < -tc.tol || d > tc.tol {
				t.Errorf("NMI = %.3f, want %.3f ± %.2f", l.NMI, tc.nmi, tc.tol)
			}
		})
	}
}

// TestB1Errors: no labels, too few cells.
func TestB1Errors(t *testing.T) {
	if _, err := B1(context.Background(), &datasets.Preprocessed{Cells: 3, Genes: 2, X: make([]float32, 6)}); err != ErrNoLabels {
		t.Errorf("unlabelled: err = %v, want ErrNoLabels", err)
	}
	one := &datasets.Preprocessed{Cells: 1, Genes: 2, X: make([]float32, 2), Labels: []int{0}, Classes: []string{"a"}}
	if _, err := B1(context.Background(), one); err == nil {
		t.Error("one cell: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := B1(ctx, toy()); err == nil {
		t.Error("cancelled context: no error")
	}
}

// toy is three well-separated groups of eight cells in four genes.
func toy() *datasets.Preprocessed {
	p := &datasets.Preprocessed{Cells: 24, Genes: 4, Classes: []string{"a", "b", "c"}}
	for i := range p.Cells {
		c := i % 3
		p.Labels = append(p.Labels, c)
		for g := range p.Genes {
			v := float32(0.01 * float64((i*7+g*3)%5))
			if g == c {
				v += 10
			}
			p.X = append(p.X, v)
		}
	}
	return p
}

func TestB1SeparatedGroups(t *testing.T) {
	l, err := B1(context.Background(), toy())
	if err != nil {
		t.Fatal(err)
	}
	if l.ARI < 0.999 || l.NMI < 0.999 || l.ARISD != 0 {
		t.Errorf("separated groups: %+v, want ARI = NMI = 1, sd 0", l)
	}
}

// TestKeyFollowsContent: the key changes with any value, label or shape,
// and only with them.
func TestKeyFollowsContent(t *testing.T) {
	a, b := toy(), toy()
	if Key(a) != Key(b) {
		t.Fatal("equal matrices, different keys")
	}
	b.X[17] += 1e-6
	c := toy()
	c.Labels[4] = 0
	d := toy()
	d.Cells, d.Genes = 48, 2
	seen := map[string]string{Key(a): "a"}
	for name, p := range map[string]*datasets.Preprocessed{"value": b, "label": c, "shape": d} {
		if k := Key(p); seen[k] != "" {
			t.Errorf("changed %s: key equals that of %s", name, seen[k])
		}
	}
}

// TestCache: a miss computes and stores, a hit reads back the same line
// even when the data would now give another, a corrupt file is recomputed,
// and concurrent writers leave one readable file and no temporary ones.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	c := Cache{Dir: dir}
	p := toy()
	want, err := c.B1(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	path := c.path(Key(p))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("nothing cached: %v", err)
	}
	// Plant a different value: a hit must return it without recomputing.
	planted := Line{ARI: 0.25, NMI: 0.5, Seeds: 5}
	if err := c.write(Key(p), planted); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.B1(context.Background(), p); !reflect.DeepEqual(got, planted) {
		t.Errorf("hit = %+v, want the cached %+v", got, planted)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.B1(context.Background(), p); !reflect.DeepEqual(got, want) {
		t.Errorf("after corruption = %+v, want recomputed %+v", got, want)
	}
	os.Remove(path)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got, err := c.B1(context.Background(), p); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("concurrent: %+v, %v", got, err)
			}
		})
	}
	wg.Wait()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("cache folder holds %d files, want 1", len(entries))
	}
	// A cache that cannot be written still answers.
	ro := Cache{Dir: filepath.Join(path, "not-a-folder")}
	if got, err := ro.B1(context.Background(), p); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("unwritable cache: %+v, %v", got, err)
	}
}
