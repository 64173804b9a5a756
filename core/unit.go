package core

// The privacy units of an ε, as short words for titles and tables. An ε is
// about one unit: figures about different units are different curves.
const (
	UnitCell   = "cell"   // one cell added or removed: every central method
	UnitClient = "client" // one client's whole data: the federated methods
)

// FamilyUnit is the privacy unit of a method family's ε by default: the
// federated methods protect one client's data unless a run asks for the
// cell unit (UnitOf).
func FamilyUnit(f Family) string {
	if f == FamilyFederated {
		return UnitClient
	}
	return UnitCell
}

// UnitOf is the privacy unit of a run's ε: its family's, except a
// federated run with the option unit=record (FL-DP and PPML-Omics' cell-
// level sound mode), whose ε is about one cell. A method not registered is
// taken as a central method's (one cell).
func UnitOf(cfg Config) string {
	m, err := LookupMethod(cfg.Method)
	if err != nil {
		return UnitCell
	}
	if m.Family == FamilyFederated && cfg.Options["unit"] == "record" {
		return UnitCell
	}
	return FamilyUnit(m.Family)
}
