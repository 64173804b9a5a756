// Package report renders a dpscope report — the data, the methods and
// modes with the guarantee of each and its reasons, the sweep table, the
// figures and the commands that reproduce them — as one self-contained
// HTML page (figures inlined as base64 PNG, styles inline, no external
// resource) and as Markdown (figures linked as files beside it).
//
// It takes a Doc of plain values and reads nothing; internal/cli builds
// the Doc from a run or sweep folder.
package report

// Doc is the content of a report.
type Doc struct {
	Title    string
	Version  string // dpscope's version that wrote the report
	Kind     string // "sweep" or "run"
	Data     []Item // what the data set is and how it was preprocessed
	Methods  []Method
	Table    *Table // nil: no table
	Figures  []Figure
	Commands []Command
	Notes    []string // caveats: privacy of the whole sweep, missing runs, missing reference lines
}

// Item is one labelled fact.
type Item struct{ Label, Value string }

// Method is one method and mode of the report with its guarantee.
type Method struct {
	Name, Title, Mode string
	Runs              int
	Guarantees        []Guarantee // the distinct statuses its runs reported, with their reasons
}

// Guarantee is a privacy guarantee status with the reasons the engine
// gave for it.
type Guarantee struct {
	Status  string // formal, conditional, paper-only, none
	Runs    int    // how many runs reported it
	Reasons []string
}

// Table is a table with a header row; Notes follow it.
type Table struct {
	Header []string
	Rows   [][]string
	Notes  []string
}

// Figure is one figure: PNG inlined in the HTML, File linked from the
// Markdown (a path relative to the report).
type Figure struct {
	Name, Caption string
	PNG           []byte
	File          string
}

// Command is a shell command with what it does; Files are files the
// command needs, given in full (e.g. the base config of a sweep).
type Command struct {
	What, Line string
	Files      []File
}

// File is a named text file shown in full.
type File struct{ Name, Content string }
