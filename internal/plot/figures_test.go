package plot

import (
	"bytes"
	"image/png"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/plot/plotter"
)

func TestGroupsOrder(t *testing.T) {
	names, members := groups([]string{"10", "2", "", "B cell", "2", "-1", "A"})
	if !slices.Equal(names, []string{"-1", "2", "10", "A", "B cell"}) {
		t.Errorf("groups %q, want numbers by value, then names", names)
	}
	if !slices.Equal(members["2"], []int{1, 4}) || len(members[""]) != 0 {
		t.Errorf("members %v", members)
	}
}

func TestEmbeddingPanels(t *testing.T) {
	e := Embedding{X: []float64{0, 1, 2, 3}, Y: []float64{1, 1, 2, 2}, Truth: []string{"a", "a", "b", ""}, Cluster: []string{"0", "1", "1", "1"}}
	rows, err := e.Panels()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || len(rows[0]) != 2 || rows[0][0].Title.Text != "true labels" || rows[0][1].Title.Text != "clusters" {
		t.Fatalf("panels %v", rows)
	}
	noTruth := e
	noTruth.Truth = nil
	if rows, err := noTruth.Panels(); err != nil || len(rows[0]) != 1 {
		t.Errorf("without labels: %d panels, %v; want the clusters alone", len(rows[0]), err)
	}
	var buf bytes.Buffer
	size, _ := SizeFor("double", 0.5)
	if err := (Figure{Panels: rows, Size: size}).Write(&buf, "png"); err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(&buf); err != nil || img.Bounds().Dx() != 2100 {
		t.Errorf("double-width PNG: %v, %v; want 2100 px wide", img.Bounds(), err)
	}
	for name, bad := range map[string]Embedding{
		"lengths": {X: []float64{1}, Y: []float64{1, 2}, Cluster: []string{"0"}},
		"NaN":     {X: []float64{math.NaN()}, Y: []float64{1}, Cluster: []string{"0"}},
		"empty":   {},
		"labels":  {X: []float64{1}, Y: []float64{1}, Truth: []string{"a", "b"}},
		"colours": {X: []float64{1}, Y: []float64{1}},
	} {
		if _, err := bad.Panels(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestTrainingPanels(t *testing.T) {
	tr := Training{Loss: Series{Label: "loss", X: []float64{1, 2}, Y: []float64{2, 1}},
		Epsilon: []Series{{Label: "RDP", X: []float64{1, 2}, Y: []float64{0.5, 1}}, {Label: "empty"}}, Target: 1}
	rows, err := tr.Panels()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d panels, %v; want loss and ε", len(rows), err)
	}
	tr.Loss = Series{}
	if rows, err := tr.Panels(); err != nil || len(rows) != 1 || rows[0][0].Y.Label.Text != "ε spent" {
		t.Errorf("without a loss: %v, %v", rows, err)
	}
	if _, err := (Training{}).Panels(); err == nil {
		t.Error("an empty trace made a figure")
	}
	bad := Training{Loss: Series{X: []float64{1}, Y: []float64{math.Inf(1)}}}
	if _, err := bad.Panels(); err == nil {
		t.Error("an infinite loss was drawn")
	}
	xy, err := Series{X: []float64{1, 3}, Y: []float64{4, 5}}.xys()
	if err != nil || !slices.Equal(xy, plotter.XYs{{X: 1, Y: 4}, {X: 3, Y: 5}}) {
		t.Errorf("xys %v, %v", xy, err)
	}
}

func TestProject2D(t *testing.T) {
	// Points on a line along (1, 2, 2)/3 in 3-D: the first component
	// carries all the spread, the second none.
	var data []float64
	for _, s := range []float64{-3, 0, 1, 2} {
		data = append(data, s, 2*s, 2*s)
	}
	x, y, err := Project2D(data, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []float64{-3, 0, 1, 2} {
		if math.Abs(math.Abs(x[i])-math.Abs(3*s)) > 1e-9 || math.Abs(y[i]) > 1e-9 {
			t.Errorf("cell %d at (%v, %v), want (±%v, 0)", i, x[i], y[i], 3*s)
		}
	}
	x, y, err = Project2D([]float64{1, 2, 3, 4}, 2, 2)
	if err != nil || !slices.Equal(x, []float64{1, 3}) || !slices.Equal(y, []float64{2, 4}) {
		t.Errorf("2-D input changed: %v %v %v", x, y, err)
	}
	if _, _, err := Project2D([]float64{1, 2}, 2, 2); err == nil {
		t.Error("a short matrix was projected")
	}
}
