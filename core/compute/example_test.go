package compute_test

import (
	"fmt"

	"github.com/dpscope/dpscope/core/compute"
)

func ExampleMulTo() {
	// A batch of 2 samples with 3 features through a 3→2 layer: out = x·Wᵀ.
	x := compute.NewMatrix(2, 3, []float32{1, 2, 3, 4, 5, 6})
	w := compute.NewMatrix(2, 3, []float32{1, 0, -1, 0.5, 0.5, 0.5})
	out := compute.NewMatrix(2, 2, nil)
	compute.MulTo(out, x, false, w, true, 1, 0)
	fmt.Println(out.RawRowView(0), out.RawRowView(1))
	// Output: [-2 3] [-2 7.5]
}

func ExampleMatrix_View() {
	m := compute.NewMatrix(3, 4, []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	v := m.View(1, 1, 2, 2) // rows 1-2, columns 1-2, sharing m's memory
	v.Set(0, 0, -5)
	fmt.Println(v.RawRowView(0), v.RawRowView(1), m.At(1, 1))
	// Output: [-5 6] [9 10] -5
}

func ExampleInit() {
	backend, err := compute.Init()
	if err != nil {
		fmt.Println("BLAS:", err) // e.g. DPSCOPE_BLAS=openblas without the library
		return
	}
	fmt.Println("BLAS:", backend) // e.g. "openblas (OpenBLAS 0.3.21 …, 2 threads, …)"
}
