package dpsgd

import (
	"math/rand/v2"
	"runtime"
	"sync"
)

// noiseBlock is the number of coordinates one block generator covers.
const noiseBlock = 1 << 16

// noiser adds Gaussian noise to a gradient on all cores. The vector is cut
// into fixed blocks of noiseBlock coordinates; before every call each block
// generator is re-seeded from the run's noise stream (a PCG for a seeded
// run, a ChaCha8 keyed by 32 bytes of the run's ChaCha8 in secure mode), so
// the draws are the same for any number of cores. Drawing about a million
// normals a step took a fifth of a DP-SGD epoch on one core.
//
// Workers are started per call with the go statement and plain arguments,
// which allocates nothing once the runtime has goroutines to reuse; none
// outlives the call.
type noiser struct {
	master *rand.Rand
	secure bool
	pcg    []*rand.PCG
	cha    []*rand.ChaCha8
	rngs   []*rand.Rand
	wg     sync.WaitGroup
}

func newNoiser(seed, stream uint64, secure bool) *noiser {
	return &noiser{master: newRand(seed, stream, secure), secure: secure}
}

// add adds independent N(0, std²) draws to every element of dst.
func (n *noiser) add(dst []float32, std float64) {
	if std == 0 || len(dst) == 0 {
		return
	}
	blocks := (len(dst) + noiseBlock - 1) / noiseBlock
	for len(n.rngs) < blocks {
		if n.secure {
			c := rand.NewChaCha8([32]byte{})
			n.cha = append(n.cha, c)
			n.rngs = append(n.rngs, rand.New(c))
		} else {
			p := rand.NewPCG(0, 0)
			n.pcg = append(n.pcg, p)
			n.rngs = append(n.rngs, rand.New(p))
		}
	}
	for b := range blocks {
		if n.secure {
			var key [32]byte
			for i := range 4 {
				v := n.master.Uint64()
				for j := range 8 {
					key[8*i+j] = byte(v >> (8 * j))
				}
			}
			n.cha[b].Seed(key)
		} else {
			n.pcg[b].Seed(n.master.Uint64(), n.master.Uint64())
		}
	}
	workers := min(runtime.GOMAXPROCS(0), blocks)
	n.wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		go n.work(dst, std, w, workers, true)
	}
	n.work(dst, std, 0, workers, false)
	n.wg.Wait()
}

// work draws the blocks w, w + stride, … of dst.
func (n *noiser) work(dst []float32, std float64, w, stride int, done bool) {
	if done {
		defer n.wg.Done()
	}
	for b := w; b*noiseBlock < len(dst); b += stride {
		rng := n.rngs[b]
		for i := range dst[b*noiseBlock : min(len(dst), (b+1)*noiseBlock)] {
			dst[b*noiseBlock+i] += float32(std * rng.NormFloat64())
		}
	}
}
