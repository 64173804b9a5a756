package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/keys"
	"github.com/dpscope/dpscope/tui/styles"
)

// field is one row of a form: it carries its own rules (when it is shown,
// whether it may change during a run, the patch it then sends). Its
// functions run in Update.
type field struct {
	name   string
	value  func() string                // the value as shown
	step   func(dir int) error          // change by one step (dir ±1)
	set    func(s string) error         // a typed value; nil: not typeable
	locked func() string                // why the field cannot change now, run or not; "" when it can
	render func(w int) string           // custom value rendering; nil: value()
	fit    func(v string, w int) string // shortens value() to w cells; nil: cut at the end
	hint   func() string                // a muted note after the value
	shown  func() bool                  // a control of the current method; nil: always
	live   bool                         // may change during a run, as patch()
	patch  func() core.Patch            // the live change (live fields)
}

// form is a list of fields with a cursor, stepped with ←/→ and typed into
// with enter. Not safe for concurrent use.
type form struct {
	fields  []field
	running func() bool // a run is going: only live fields may change
	cursor  int
	editing bool
	input   []rune // the text being typed (a small line editor: no new module)
}

// inputLimit bounds a typed value.
const inputLimit = 32

func newForm(fields []field) form { return form{fields: fields} }

// lockedDuringRun is why a field that is not live cannot change while a
// run is going.
const lockedDuringRun = "fixed while a run is going"

// formEdit reports which field an Update changed, if any.
type formEdit struct {
	changed bool
	index   int
	err     error
}

// update handles a key press; it returns the edit it made.
func (f *form) update(msg tea.KeyPressMsg, k keys.KeyMap) (formEdit, tea.Cmd) {
	if f.editing {
		switch {
		case key.Matches(msg, k.Cancel):
			f.editing = false
			return formEdit{}, nil
		case key.Matches(msg, k.Edit):
			f.editing = false
			fd := f.fields[f.cursor]
			if err := fd.set(strings.TrimSpace(string(f.input))); err != nil {
				return formEdit{err: err}, nil
			}
			return formEdit{changed: true, index: f.cursor}, nil
		case msg.Code == tea.KeyBackspace:
			if len(f.input) > 0 {
				f.input = f.input[:len(f.input)-1]
			}
		case msg.Text != "" && len(f.input) < inputLimit:
			f.input = append(f.input, []rune(msg.Text)...)
		}
		return formEdit{}, nil
	}
	switch {
	case key.Matches(msg, k.Up):
		f.move(-1)
	case key.Matches(msg, k.Down):
		f.move(1)
	case key.Matches(msg, k.Dec), key.Matches(msg, k.Inc):
		fd := f.fields[f.cursor]
		if why := f.lockedReason(f.cursor); why != "" {
			return formEdit{err: errorf("%s: %s", fd.name, why)}, nil
		}
		dir := 1
		if key.Matches(msg, k.Dec) {
			dir = -1
		}
		if err := fd.step(dir); err != nil {
			return formEdit{err: err}, nil
		}
		return formEdit{changed: true, index: f.cursor}, nil
	case key.Matches(msg, k.Edit):
		fd := f.fields[f.cursor]
		if why := f.lockedReason(f.cursor); why != "" {
			return formEdit{err: errorf("%s: %s", fd.name, why)}, nil
		}
		if fd.set == nil {
			return formEdit{}, nil
		}
		f.editing = true
		f.input = []rune(fd.value())
		return formEdit{}, nil
	}
	return formEdit{}, nil
}

// move puts the cursor on the next shown field in direction d.
func (f *form) move(d int) {
	n := len(f.fields)
	for range n {
		f.cursor = (f.cursor + d + n) % n
		if !f.isHidden(f.cursor) {
			return
		}
	}
}

// settle moves the cursor off a field that became hidden (the method
// changed), to the next shown one.
func (f *form) settle() {
	if f.isHidden(f.cursor) {
		f.move(1)
	}
}

func (f *form) isHidden(i int) bool { return f.fields[i].shown != nil && !f.fields[i].shown() }

// shownCount is the number of rows the form draws.
func (f *form) shownCount() int {
	n := 0
	for i := range f.fields {
		if !f.isHidden(i) {
			n++
		}
	}
	return n
}

func (f *form) lockedReason(i int) string {
	if f.running != nil && f.running() && !f.fields[i].live {
		return lockedDuringRun
	}
	if f.fields[i].locked == nil {
		return ""
	}
	return f.fields[i].locked()
}

// fitted is the field's value in w cells: fit's shortening when the field
// has one and the value is wider, else the value (the row is cut at its end).
func (fd field) fitted(w int) string {
	v := fd.value()
	if fd.fit != nil && lipgloss.Width(v) > w {
		return fd.fit(v, w)
	}
	return v
}

// keepQualifier shortens a method label to w cells keeping what follows
// its last ", " ("…, no noise"): cut at the end, "DP-DCAN sound
// (redesigned)" and "DP-DCAN sound (redesigned), no noise" both read
// "DP-DCAN sound (redesigne…" in the 80- and 120-column side panel.
func keepQualifier(v string, w int) string {
	i := strings.LastIndex(v, ", ")
	if i < 0 {
		return truncate(v, w)
	}
	tail := v[i:]
	head := w - lipgloss.Width(tail) - 1
	if head < 4 {
		return truncate(v, w)
	}
	return truncate(v[:i], head+1) + tail
}

// view renders the form in width w: a name column and a value column.
func (f *form) view(st styles.Styles, w int) string {
	nameW := 0
	for i, fd := range f.fields {
		if !f.isHidden(i) {
			nameW = max(nameW, lipgloss.Width(fd.name))
		}
	}
	nameW = min(nameW+1, max(w/2, 4))
	valW := max(w-nameW-2, 4)
	var rows []string
	for i, fd := range f.fields {
		if f.isHidden(i) {
			continue
		}
		marker := "  "
		name := st.Label.Render(pad(fd.name, nameW))
		if i == f.cursor {
			marker = st.Cursor.Render("▸ ")
			name = st.Cursor.Render(pad(fd.name, nameW))
		}
		var val string
		switch {
		case i == f.cursor && f.editing:
			val = st.Editing.Render(truncate(string(f.input), valW-1)) + st.Cursor.Render(" ")
		case fd.render != nil:
			val = fd.render(valW)
		case f.lockedReason(i) != "":
			val = st.Locked.Render(fd.fitted(valW))
		default:
			val = st.Value.Render(fd.fitted(valW))
		}
		if fd.hint != nil && !(i == f.cursor && f.editing) {
			if h := fd.hint(); h != "" {
				val += " " + st.Muted.Render(h)
			}
		}
		rows = append(rows, truncate(marker+name+val, w))
	}
	return strings.Join(rows, "\n")
}

// pad right-pads s with spaces to n cells.
func pad(s string, n int) string {
	if d := n - lipgloss.Width(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// stepInt steps *v by d within [lo, hi].
func stepInt(name string, v *int, d, lo, hi int) error {
	n := *v + d
	if n < lo || n > hi {
		return fmt.Errorf("%s must be in %d..%d", name, lo, hi)
	}
	*v = n
	return nil
}

// setInt sets *v from a typed value within [lo, hi].
func setInt(name string, v *int, s string, lo, hi int) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return fmt.Errorf("%s is %q, must be a whole number in %d..%d", name, s, lo, hi)
	}
	*v = n
	return nil
}

// scaleInt multiplies or divides *v by f (rounding, at least by one).
func scaleInt(name string, v *int, f float64, d, lo, hi int) error {
	n := int(math.Round(scaleStep(float64(*v), f, d)))
	if n == *v {
		n += d
	}
	if n < lo || n > hi {
		return fmt.Errorf("%s must be in %d..%d", name, lo, hi)
	}
	*v = n
	return nil
}

// cycle steps through choices from cur.
func cycle(choices []string, cur string, d int) string {
	i := 0
	for j, c := range choices {
		if c == cur {
			i = j
		}
	}
	return choices[(i+d+len(choices))%len(choices)]
}

// scaleStep multiplies or divides v by f.
func scaleStep(v, f float64, dir int) float64 {
	if dir > 0 {
		return v * f
	}
	return v / f
}

// round3 keeps 3 significant digits, so stepping stays readable.
func round3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// parsePositive reads a typed finite number > 0; the error names the
// field, so a typo is told apart from an out-of-range value.
func parsePositive(name, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("%s is %q, must be a finite number > 0", name, s)
	}
	return v, nil
}

// setFraction sets *dst from a typed number in (0, 1) (δ, θ), leaving it
// unchanged on an error that names the field.
func setFraction(name string, dst *float64, s string) error {
	v, err := parsePositive(name, s)
	if err == nil && v >= 1 {
		err = fmt.Errorf("%s is %v, must be in (0, 1)", name, v)
	}
	if err == nil {
		*dst = v
	}
	return err
}
