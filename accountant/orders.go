package accountant

// OrderSet names a list of RDP orders used by a public implementation.
type OrderSet int

const (
	// OrdersOpacus is Opacus' RDPAccountant.DEFAULT_ALPHAS: 1.1, 1.2, …, 10.9
	// and 12, …, 63 (151 orders; 11 is missing, as in Opacus).
	OrdersOpacus OrderSet = iota
	// OrdersDPDCAN is the order list of DP-DCAN's code: 1.1, …, 10.9, 11, …,
	// 63, 128, 256, 512 (155 orders).
	OrdersDPDCAN
	// OrdersDPAccounting is dp_accounting's DEFAULT_RDP_ORDERS: 1.1, …, 10.9,
	// 11, …, 63, 128, 256, 512, 1024 (156 orders).
	OrdersDPAccounting
	// OrdersTFPrivacy is TensorFlow Privacy's compute_dp_sgd_privacy list:
	// 1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5, 5, …, 63, 128, 256, 512
	// (72 orders).
	OrdersTFPrivacy
)

// Orders returns a fresh copy of the set's orders in increasing order.
// An unknown set returns Opacus' orders.
func (s OrderSet) Orders() []float64 {
	frac := func() []float64 {
		o := make([]float64, 0, 160)
		for x := 1; x <= 99; x++ {
			o = append(o, 1+float64(x)/10)
		}
		return o
	}
	ints := func(o []float64, lo, hi int) []float64 {
		for a := lo; a <= hi; a++ {
			o = append(o, float64(a))
		}
		return o
	}
	switch s {
	case OrdersDPDCAN:
		return append(ints(frac(), 11, 63), 128, 256, 512)
	case OrdersDPAccounting:
		return append(ints(frac(), 11, 63), 128, 256, 512, 1024)
	case OrdersTFPrivacy:
		o := []float64{1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5}
		return append(ints(o, 5, 63), 128, 256, 512)
	default:
		return ints(frac(), 12, 63)
	}
}

// String returns the set's label as used in ../shared/refs/accountant.
func (s OrderSet) String() string {
	switch s {
	case OrdersDPDCAN:
		return "dpdcan_155"
	case OrdersDPAccounting:
		return "dpaccounting_default_156"
	case OrdersTFPrivacy:
		return "tfprivacy_72"
	default:
		return "opacus_default_151"
	}
}
