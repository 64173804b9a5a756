package dpsgd

// noiseAhead draws the standard normal noise of the next noisy step on its
// own goroutine while the current step's forward and backward passes run.
// A million draws take about 2.4 ms, a seventh of a step on the peers'
// autoencoder. Drawn ahead they no longer sit on the step's path, but they
// still compete with OpenBLAS's two threads for the two cores, so the gain
// is smaller than their cost: +3.5 % samples/s on that benchmark
// (docs/PERFORMANCE.md). The draws come from one generator in order, so
// runs still reproduce exactly.
//
// The buffer for step t+1 is drawn for the perturbed range of step t; if a
// patch changes the range in between, take discards it and draws again.
type noiseAhead struct {
	normal  normalSource
	size    int           // capacity of each buffer: all parameters
	bufs    [2][]float32  // the buffer in use and the one being filled
	span    [2][2]int     // parameter range [lo, hi) each buffer is for
	next    int           // the buffer the next take returns
	req     chan int      // to the worker: fill this buffer
	ready   chan struct{} // from the worker: the requested buffer is full
	done    chan struct{} // closed when the worker has returned
	running bool
}

func newNoiseAhead(src wordSource, size int) *noiseAhead {
	return &noiseAhead{normal: normalSource{src: src}, size: size}
}

// take returns N(0, 1) draws for the parameters [lo, hi) of this step and
// starts drawing the next step's. The slice is valid until the next take.
func (n *noiseAhead) take(lo, hi int) []float32 {
	if !n.running {
		n.start()
		n.span[n.next] = [2]int{lo, hi}
		n.fill(n.next)
	} else {
		<-n.ready
		if n.span[n.next] != [2]int{lo, hi} {
			n.span[n.next] = [2]int{lo, hi}
			n.fill(n.next)
		}
	}
	z := n.bufs[n.next][:hi-lo]
	n.next ^= 1
	n.span[n.next] = [2]int{lo, hi}
	n.req <- n.next
	return z
}

func (n *noiseAhead) start() {
	if n.bufs[0] == nil {
		n.bufs = [2][]float32{make([]float32, n.size), make([]float32, n.size)}
	}
	n.req, n.ready, n.done = make(chan int, 1), make(chan struct{}, 1), make(chan struct{})
	n.running = true
	go n.work()
}

func (n *noiseAhead) work() {
	defer close(n.done)
	for i := range n.req {
		n.fill(i)
		n.ready <- struct{}{}
	}
}

func (n *noiseAhead) fill(i int) {
	s := n.span[i]
	n.normal.fill(n.bufs[i][:s[1]-s[0]])
}

// stop ends the worker and waits for it. The draw it may have made ahead
// is dropped; a later take starts a new worker on the same generator.
func (n *noiseAhead) stop() {
	if !n.running {
		return
	}
	close(n.req)
	<-n.done
	n.running = false
}
