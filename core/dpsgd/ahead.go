package dpsgd

import (
	"runtime"
	"sync/atomic"

	"github.com/dpscope/dpscope/core/compute"
)

// noiseAhead draws the next step's noise ahead of the step, on
// compute.Split's helper goroutine while it has no half to run (between
// the halves of a step the caller works alone for 1.5–2 ms: the output's
// clearing, the small layers, the loss's and the clip factors' glue;
// docs/PERFORMANCE.md, rule G35). The draws are the ones the step would make: the same words
// from the same generator states, block by block as addScaledSplit deals
// them, and the misses finished in the same order from the same extra
// bits, so the step's noise is the same bit for bit however much of it
// was drawn ahead (TestNoiseAheadSameBits). What the helper has not drawn
// by the step, the step draws on both goroutines, as before.
//
// Each draw z is kept unscaled (the fast path's ±(2m+1)·w, added to a
// cleared block with scale 1, is exact); the step then adds
// float32(std·z) to the gradient, the operations addScaled performs.
type noiseAhead struct {
	task   compute.IdleTask
	active atomic.Bool  // the helper may draw (between start and take)
	busy   atomic.Int32 // helper pieces in progress
	next   atomic.Int64 // the next block to draw

	x0     xoshiro8 // the words' state at block 0
	extra0 xoshiro  // the extra bits' state before the first miss
	n      int      // the draws the step will make (its perturbed parameters)
	blocks int      // full blocks among them
	z      []float32
	miss   [][]noiseMiss // per block, the misses in order

	// The helper's own state: where its generator stands, and its block
	// buffers (the step's two goroutines use parts).
	hx    xoshiro8
	hat   int
	hpart noisePart
	parts [2]noisePart

	add   aheadAdd // take's job
	ahead int64    // blocks the helper had drawn by take, over all calls

	// The misses' resolution, in order: by the helper until take stops
	// it, then by take.
	extra    xoshiro
	resBlock int
	resMiss  int
}

// noiseAheadOn says whether DPSGD draws a step's noise ahead on the
// helper goroutine (rule G35); a variable for the benchmark and the test
// that compare the two ways.
var noiseAheadOn = true

// aheadPiece is the number of misses one idle piece resolves: about 5 µs.
const aheadPiece = 256

// start begins drawing ahead the noise of n draws from src's present
// state, if src and the machine allow it (as addScaled's split does);
// else it does nothing.
func (a *noiseAhead) start(src *normalSource, n int) {
	a.stop()
	x, ok := src.words.(*xoshiro8)
	ex, ok2 := src.extra.(*xoshiro)
	if !noiseAheadOn || !ok || !ok2 || !noiseSplit || !(hasAVX512 || hasAVX2) || n < noiseSplitMin || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	a.x0, a.extra0, a.extra = *x, *ex, *ex
	a.n, a.blocks = n, n/zigBlock
	if cap(a.z) < a.blocks*zigBlock {
		a.z = make([]float32, a.blocks*zigBlock)
	}
	a.z = a.z[:a.blocks*zigBlock]
	for len(a.miss) < a.blocks {
		// 0.43 % of a block's 4,096 draws miss, 17.6 ± 4.
		a.miss = append(a.miss, make([]noiseMiss, 0, 64))
	}
	a.hx, a.hat = a.x0, 0
	a.resBlock, a.resMiss = 0, 0
	a.next.Store(0)
	a.task.Work = a
	a.active.Store(true)
	compute.SetIdleWork(&a.task)
}

// stop ends the helper's drawing: when it returns, no piece runs and none
// will start.
func (a *noiseAhead) stop() {
	if !a.active.Swap(false) {
		return
	}
	compute.EndIdleWork(&a.task)
	for a.busy.Load() != 0 {
		runtime.Gosched()
	}
}

// IdlePiece implements compute.IdleWork: one block drawn, or up to
// aheadPiece misses resolved.
func (a *noiseAhead) IdlePiece() bool {
	a.busy.Add(1)
	defer a.busy.Add(-1)
	if !a.active.Load() {
		return false
	}
	if b := int(a.next.Add(1)) - 1; b < a.blocks {
		a.hx.jumpBlocks(b - a.hat)
		a.drawBlock(b, &a.hx, &a.hpart)
		a.hat = b + 1
		return true
	}
	// Every block is drawn: the helper drew them in turn, each within
	// its piece.
	return !a.resolve(aheadPiece)
}

// drawBlock draws block b from x (at block b; it ends past it) with the
// buffers of p: the fast path's draws into z, the misses listed.
func (a *noiseAhead) drawBlock(b int, x *xoshiro8, p *noisePart) {
	s := b * zigBlock
	z := a.z[s : s+zigBlock]
	clear(z)
	a.miss[b] = p.addBlock(z, s, x, 1, a.miss[b][:0])
}

// resolve finishes up to max misses in order, from the extra bits where
// the last call left them, and reports whether every miss is finished.
// All blocks must be drawn, and only one goroutine may resolve at a time
// (the helper in its pieces, or take once stop has returned).
func (a *noiseAhead) resolve(max int) bool {
	e := extraBits{&a.extra}
	for ; a.resBlock < a.blocks; a.resBlock, a.resMiss = a.resBlock+1, 0 {
		miss := a.miss[a.resBlock]
		for ; a.resMiss < len(miss); a.resMiss++ {
			if max == 0 {
				return false
			}
			max--
			m := miss[a.resMiss]
			a.z[m.i] = e.slowNormal(m.w)
		}
	}
	return true
}

// take adds std times the noise drawn ahead to g (len(g) = n, the draws
// start was given) and leaves src as if addScaled(g, std) had run, and
// reports true; or reports false, having done nothing, when nothing was
// drawn ahead for this call (src drew since, or n differs), and the
// caller draws the noise itself.
func (a *noiseAhead) take(src *normalSource, g []float32, std float32) bool {
	wasActive := a.active.Load()
	a.stop()
	x, ok := src.words.(*xoshiro8)
	ex, ok2 := src.extra.(*xoshiro)
	if !wasActive || !ok || !ok2 || len(g) != a.n || *x != a.x0 || *ex != a.extra0 {
		return false
	}
	// Stopped, the helper has finished every block it took.
	drawn := min(int(a.next.Load()), a.blocks)
	a.ahead += int64(drawn)
	// The blocks the helper did not draw, on both goroutines.
	if drawn < a.blocks {
		compute.Split(2, 1, compute.SplitMin, (*aheadDraw)(a))
	}
	a.resolve(-1)
	full := a.blocks * zigBlock
	a.add = aheadAdd{g: g[:full], z: a.z, std: std}
	compute.Split(full, 8, 1, &a.add)
	a.add = aheadAdd{}
	x.jumpBlocks(a.blocks)
	*ex = a.extra
	src.addScaled(g[full:], std)
	return true
}

// aheadDraw is take's compute.RangeJob: two workers that draw the blocks
// left, taking them in turn, each from the generator's state at block 0
// jumped to its block.
type aheadDraw noiseAhead

// Run implements compute.RangeJob (part lo of two).
func (d *aheadDraw) Run(lo, hi int) {
	a := (*noiseAhead)(d)
	p := &a.parts[min(lo, 1)]
	x, at := a.x0, 0
	for {
		b := int(a.next.Add(1)) - 1
		if b >= a.blocks {
			return
		}
		x.jumpBlocks(b - at)
		a.drawBlock(b, &x, p)
		at = b + 1
	}
}

// aheadAdd adds std·z to g, for compute.Split: g[k] += float32(std·z[k]),
// a product rounded, then a sum rounded, as addScaled (gonum's saxpy, in
// SSE: multiplies, then adds, no fused multiply-add).
type aheadAdd struct {
	g, z []float32
	std  float32
}

// Run implements compute.RangeJob.
func (j *aheadAdd) Run(lo, hi int) {
	compute.Impl().Saxpy(hi-lo, j.std, j.z[lo:hi], 1, j.g[lo:hi], 1)
}
