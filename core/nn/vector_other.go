//go:build !amd64 || purego

package nn

// Without the amd64 kernels the Go loops do every entry.

var hasAVX2 = false

func reluVector(y []float32) int { return 0 }

func reluDerivVector(g, y []float32) int { return 0 }

func mseVector(d, y, x []float32, c float32, sums *[8]float32) int { return 0 }

func scaleVector(dst, src []float32, a float32) int { return 0 }

func exp32Vector(dst, src []float32) int { return 0 }

func log32Vector(dst, src []float32) int { return 0 }
