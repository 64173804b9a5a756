package core

// ClientsEvent reports a federated run's client split: at the start, and
// again whenever the number of clients changes. It is never dropped.
type ClientsEvent struct {
	Round int    `json:"round"` // the first round under this split, 1-based
	K     int    `json:"k"`     // clients
	Split string `json:"split"` // the split as --opt split spells it, e.g. "noniid:2"
	Sizes []int  `json:"sizes"` // cells per client
	// Classes lists the class names present at each client (nil when the
	// data set has no labels).
	Classes [][]string `json:"classes,omitempty"`
}

func (ClientsEvent) coalesces() bool { return false }
