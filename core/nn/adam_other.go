//go:build !amd64 || purego

package nn

// adamConsts are the per-step constants of Adam's update.
type adamConsts struct{ b1, c1, b2, c2, step, inv, eps float32 }

// adamVector has no vector kernel on this platform: Adam.Step's loop does
// every entry.
func adamVector(params, grads, m, v []float32, k *adamConsts) int { return 0 }

// adadeltaConsts are the per-step constants of Adadelta's update.
type adadeltaConsts struct{ rho, c, eps, lr float32 }

// adadeltaVector has no vector kernel on this platform: Adadelta.Step's
// loop does every entry.
func adadeltaVector(params, grads, s, a []float32, k *adadeltaConsts) int { return 0 }
