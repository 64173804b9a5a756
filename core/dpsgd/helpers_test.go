package dpsgd

import (
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// fixture is a small autoencoder with a data set and loss functions for one
// view (MSE) and two views (MSE of both + per-cell negative cosine).
type fixture struct {
	ae    *nn.Autoencoder
	data  compute.Matrix // records × genes
	in    compute.Matrix // MaxRows × genes input buffer
	views int
}

func newFixture(t testing.TB, records, genes, maxRows, views int, act nn.Activation, seed uint64) *fixture {
	t.Helper()
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: genes, Hidden: []int{12, 8}, Latent: 4, Act: act,
		Output: nn.OutputLinear, MaxRows: maxRows, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	data := compute.NewMatrix(records, genes, nil)
	for i := range data.Data {
		data.Data[i] = float32(rng.NormFloat64())
	}
	return &fixture{ae: ae, data: data, in: compute.NewMatrix(maxRows, genes, nil), views: views}
}

// loss is a LossFunc. View 0 of record r is its data row; view 1 zeroes the
// genes j with (r + j) % 3 == 0 (a fixed mask, so that the explicit loop and
// the ghost path see the same views).
func (f *fixture) loss(cells []int) (float64, error) {
	m, g := len(cells), f.data.Cols
	x := f.in.View(0, 0, f.views*m, g)
	for i, r := range cells {
		copy(x.RawRowView(i), f.data.RawRowView(r))
		if f.views == 2 {
			row := x.RawRowView(m + i)
			copy(row, f.data.RawRowView(r))
			for j := range row {
				if (r+j)%3 == 0 {
					row[j] = 0
				}
			}
		}
	}
	f.ae.Forward(x)
	l := nn.MSE(f.ae.OutputGrad(0), f.ae.Output(0), x, 1)
	if f.views == 2 {
		z, dz := f.ae.Latent(), f.ae.LatentGrad()
		d := z.Cols
		l += nn.NegCosine(dz.View(0, 0, m, d), dz.View(m, 0, m, d), z.View(0, 0, m, d), z.View(m, 0, m, d), 1)
	}
	f.ae.Backward()
	return l, nil
}
