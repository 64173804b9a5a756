//go:build !amd64 || purego

package dpsgd

// Without the amd64 kernels, xoshiro8.fill16, addScaled and dot do every
// entry in Go.

// hasAVX512 is false: there are no vector kernels here.
var hasAVX512 = false

// hasAVX2 is false: there are no vector kernels here.
var hasAVX2 = false

func xoshiro8Vector(x *xoshiro8, dst []uint32) int { return 0 }

func zigAddVector(g []float32, words []uint32, missed []uint16, std float32) int { return 0 }

func dotVector(x, y []float32, acc *[dotLanes]float32) int { return 0 }
