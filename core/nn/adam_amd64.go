//go:build !purego

package nn

import "golang.org/x/sys/cpu"

// adamConsts are the per-step constants of Adam's update, in the order
// adamAVX reads them.
type adamConsts struct{ b1, c1, b2, c2, step, inv, eps float32 }

// adamAVX runs the update of Adam.Step on the first n &^ 7 entries with
// 8-wide AVX and returns how many it did. Go has no vector square root or
// division, and the scalar divider made Adam a sixth of a training step.
//
//go:noescape
func adamAVX(p, grad, m, v *float32, n int, k *adamConsts) int

// adamVector runs the vector kernel over params when the CPU has AVX and
// returns how many leading entries it updated.
func adamVector(params, grads, m, v []float32, k *adamConsts) int {
	if !cpu.X86.HasAVX || len(params) < 8 {
		return 0
	}
	return adamAVX(&params[0], &grads[0], &m[0], &v[0], len(params), k)
}

// adadeltaConsts are the per-step constants of Adadelta's update, in the
// order adadeltaAVX reads them.
type adadeltaConsts struct{ rho, c, eps, lr float32 }

// adadeltaAVX runs the update of Adadelta.Step on the first n &^ 7
// entries with 8-wide AVX and returns how many it did (two square roots
// and a division per entry: the scalar loop was a few per cent of a DCAN
// stage-2 step).
//
//go:noescape
func adadeltaAVX(p, grad, s, a *float32, n int, k *adadeltaConsts) int

// adadeltaVector runs the vector kernel over params when the CPU has AVX
// and returns how many leading entries it updated.
func adadeltaVector(params, grads, s, a []float32, k *adadeltaConsts) int {
	if !cpu.X86.HasAVX || len(params) < 8 {
		return 0
	}
	return adadeltaAVX(&params[0], &grads[0], &s[0], &a[0], len(params), k)
}
