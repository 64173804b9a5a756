package tui

import "github.com/dpscope/dpscope/core"

// One ε axis, one unit (issue 19 point 5): an ε is a figure of one
// accountant (RDP, PLD, GDP, zCDP, a paper's own) about one privacy unit
// (one cell added or removed, or one client's whole data). Figures of
// different accountants or units are not comparable, so no chart puts them
// on one axis: a chart of one run draws each accountant as its own
// labelled series and names the unit in its title; the Compare frontier
// draws the runs of one axis at a time and names it.

// The privacy units, as short words for titles and tables (core.UnitOf).
const (
	unitCell   = core.UnitCell
	unitClient = core.UnitClient
)

// unitOfConfig is the privacy unit of a run's ε (core.UnitOf).
func unitOfConfig(c core.Config) string { return core.UnitOf(c) }

// unit is the privacy unit of the runs these settings make.
func (p runParams) unit() string {
	if p.V().Family() == familyFederated && p.Fed.Unit == "record" {
		return unitCell
	}
	return core.FamilyUnit(p.V().Family())
}

// unitTitle names the unit in a title: "one cell" (the glossary's
// "privacy unit" says what it means).
func unitTitle(unit string) string { return "one " + unit }

// epsAxis is what an ε is measured on: the accountant that computed it
// and the privacy unit it protects.
type epsAxis struct{ Accountant, Unit string }

// String is the axis as a chart title or legend names it.
func (a epsAxis) String() string { return "ε " + a.Accountant + ", one " + a.Unit }
