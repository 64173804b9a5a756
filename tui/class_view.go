package tui

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/dpscope/dpscope/internal/class"
	"github.com/dpscope/dpscope/tui/chart"
)

// boardLayout splits the pane: the chart's box width and height, and the
// leaderboard's width (0: below the chart).
func (p *classPane) boardLayout() (chartW, chartH, tableW int) {
	if p.w >= 100 {
		tableW = max(p.w*2/5, 44)
		return p.w - tableW, max(p.h-2, 6), tableW // the header and the foot lines
	}
	return p.w, max(p.h/2, 6), 0
}

// Frame redraws the board's chart when something changed.
func (p *classPane) Frame() {
	if !p.dirty || !p.seat.Instructor() {
		return
	}
	p.dirty = false
	st := p.c.Styles
	p.chart.SetStyles(st.Axis, st.AxisLabel, st.Marker)
	cw, ch, _ := p.boardLayout()
	p.chart.Resize(max(cw-2, 10), max(ch-4, 3)) // box borders, title, legend
	p.chart.Reset()
	lo, hi := classTargets[0], classTargets[len(classTargets)-1]
	minY := 0.0
	top := map[string]int{}
	for i, e := range class.Leaderboard(p.runs, p.set, classTargets[p.target]) {
		if i < classTop {
			top[e.Best.Member] = i
		}
	}
	others := []chart.Point{}
	mine := make([][]chart.Point, classTop)
	for _, r := range p.runs {
		if r.Data != p.set {
			continue
		}
		lo, hi, minY = math.Min(lo, r.Epsilon), math.Max(hi, r.Epsilon), math.Min(minY, r.ARI)
		pt := chart.Point{X: math.Log10(math.Max(r.Epsilon, 1e-3)), Y: r.ARI}
		if i, ok := top[r.Member]; ok {
			mine[i] = append(mine[i], pt)
		} else {
			others = append(others, pt)
		}
	}
	lo = math.Max(lo, 1e-3)
	var ticks []chart.Tick
	for _, e := range classTargets {
		ticks = append(ticks, chart.Tick{X: math.Log10(e), Label: strconv.FormatFloat(e, 'g', -1, 64)})
	}
	p.chart.SetXTicks(ticks)
	p.chart.SetRange(math.Log10(lo)-0.05, math.Log10(hi)+0.05, math.Floor(minY*10)/10, 1)
	p.chart.AddMarker(math.Log10(classTargets[p.target]))
	p.chart.SetPoints("others", st.Muted, others).Dots = true
	for i := classTop - 1; i >= 0; i-- { // the first drawn last, on top
		p.chart.SetPoints(fmt.Sprintf("top%d", i), st.SeriesStyle(i), mine[i]).Dots = true
	}
	p.chart.Draw()
}

// View renders the tab: the board for an instructor, the participant's
// card for everyone.
func (p *classPane) View() string {
	if !p.seat.Instructor() {
		w := max(p.w-2, 10)
		return p.c.Styles.Box.Render(padBlock(block(strings.Join(p.card(w), "\n"), w, max(p.h-2, 1)), w))
	}
	return p.board()
}

// card is what every session sees: its name, what it reported and the
// last push.
func (p *classPane) card(w int) []string {
	st := p.c.Styles
	name := st.Value.Render(p.seat.Name())
	if p.typing == classTypingName {
		name = st.Editing.Render(string(p.input)) + st.Cursor.Render(" ") + st.Muted.Render("  enter keeps it · esc cancels")
	}
	lines := []string{st.BoxTitle.Render("Class") + st.Muted.Render(" · this server's workshop"), "",
		st.Label.Render("your name on the class board: ") + name + st.Muted.Render("   (n changes it)")}
	lines = append(lines, wrap(st.Muted.Render(fmt.Sprintf("your runs on the board: %d. Each finished private run with an ARI goes there: your name, the method, mode, ε (accountant, unit), δ, ARI, NMI, seed and data set; the instructor sees them, the other participants do not.", p.reported)), w)...)
	lines = append(lines, "")
	if p.note != "" {
		lines = append(lines, st.Warn.Render(truncate(p.note, w)))
	}
	if p.push == nil {
		return append(lines, st.Muted.Render("no message from the instructor yet"))
	}
	if p.push.Message != "" {
		lines = append(lines, wrap(st.Label.Render(fmt.Sprintf("message %d from %s: ", p.push.Seq, p.push.From))+st.Value.Render(p.push.Message), w)...)
	}
	if pre := p.push.Preset; pre != nil {
		state := st.Good.Render("L loads them into your Run settings") + st.Muted.Render(" (nothing changes until you press L; your data set stays)")
		if p.loaded == p.push.Seq {
			state = st.Muted.Render("loaded")
		}
		lines = append(lines, wrap(st.Label.Render(p.push.From+"'s settings: ")+st.Value.Render(pre.Summary)+" · "+state, w)...)
	}
	return lines
}

// board is the instructor's view: the chart beside (or above) the
// leaderboard, the controls' state and the card.
func (p *classPane) board() string {
	st := p.c.Styles
	cw, ch, tw := p.boardLayout()
	target := classTargets[p.target]
	members := map[string]bool{}
	for _, r := range p.runs {
		members[r.Member] = true
	}
	set := "no runs yet"
	if p.set != "" {
		set = dataName(p.set)
		if len(p.sets) > 1 {
			set += fmt.Sprintf(" (%d of %d, [ ] change)", p.setIndex()+1, len(p.sets))
		}
	}
	head := st.BoxTitle.Render("Class board") + st.Muted.Render(fmt.Sprintf(" · %d participants · %d runs · data ", len(members), len(p.runs))) +
		st.Value.Render(set) + st.Muted.Render(" · target ") + st.Value.Render("ε ≤ "+fmtEps(target)) + st.Muted.Render(" (←/→)")
	board := class.Leaderboard(p.runs, p.set, target)
	// The chart's box: its title, the chart and the legend of the top few.
	legend := []string{}
	for i, e := range board[:min(len(board), classTop)] {
		legend = append(legend, st.SeriesStyle(i).Render("● "+e.Name))
	}
	legend = append(legend, st.Muted.Render("· others"), st.Marker.Render("│ target"))
	var chartBody string
	if p.chart.Empty() {
		chartBody = st.Muted.Render("no run on this data set yet: points appear as participants finish private runs")
	} else {
		chartBody = p.chart.View()
	}
	inner := []string{truncate(st.BoxTitle.Render("ARI against ε spent (log axis)"), cw-2), chartBody, truncate(strings.Join(legend, " "), cw-2)}
	chartBox := st.Box.Render(padBlock(block(strings.Join(inner, "\n"), cw-2, ch-2), cw-2))
	// The leaderboard.
	th := ch
	if tw == 0 {
		tw, th = p.w, max(p.h-ch-2, 3)
	}
	table := p.table(board, tw-2, th-2, target)
	tableBox := st.Box.Render(padBlock(block(strings.Join(table, "\n"), tw-2, th-2), tw-2))
	var body string
	if tw == p.w && cw == p.w {
		body = lipgloss.JoinVertical(lipgloss.Left, chartBox, tableBox)
	} else {
		body = lipgloss.JoinHorizontal(lipgloss.Top, chartBox, tableBox)
	}
	foot := p.instructorLine(p.w)
	return block(strings.Join([]string{truncate(head, p.w), body, foot}, "\n"), p.w, p.h)
}

// table is the leaderboard: one line a participant, best ARI at ε ≤ target.
func (p *classPane) table(board []class.Entry, w, h int, target float64) []string {
	st := p.c.Styles
	nameW := 4
	for _, e := range board {
		nameW = max(nameW, lipgloss.Width(e.Name))
	}
	lines := []string{truncate(st.BoxTitle.Render("Best ARI at ε ≤ "+fmtEps(target)), w),
		st.Label.Render(truncate(fmt.Sprintf("%3s %-*s %5s %6s  %s", "#", nameW, "name", "ARI", "ε", "by · method"), w))}
	room := max(h-len(lines), 1)
	for i, e := range board {
		if i == room-1 && len(board) > room {
			lines = append(lines, st.Muted.Render(fmt.Sprintf("… %d more", len(board)-i)))
			break
		}
		r := e.Best
		line := fmt.Sprintf("%3d %s %5.3f %6s  %s/%s · %s %s", i+1, padRight(e.Name, nameW), r.ARI, fmtEps(r.Epsilon),
			r.Accountant, r.Unit, r.Method, r.Mode)
		style := st.Value
		if i < classTop {
			style = st.SeriesStyle(i)
		}
		lines = append(lines, style.Render(truncate(line, w)))
	}
	if len(board) == 0 {
		lines = append(lines, st.Muted.Render("no run at this ε yet"))
	}
	return lines
}

// instructorLine is the board's last line: what is being typed, the
// answer to the last push, or the keys that push.
func (p *classPane) instructorLine(w int) string {
	st := p.c.Styles
	switch {
	case p.typing == classTypingMessage:
		return truncate(st.Label.Render("message to every session: ")+st.Editing.Render(string(p.input))+st.Cursor.Render(" ")+st.Muted.Render("  enter sends · esc cancels"), w)
	case p.typing == classTypingName:
		return truncate(st.Label.Render("your name: ")+st.Editing.Render(string(p.input))+st.Cursor.Render(" ")+st.Muted.Render("  enter keeps it · esc cancels"), w)
	case p.note != "":
		return truncate(st.Warn.Render(p.note)+st.Muted.Render(" · you are "+p.seat.Name()), w)
	}
	return truncate(st.Muted.Render("you are "+p.seat.Name()+" · P pushes your Run settings ("+presetSummary(p.params)+") · M pushes a message"), w)
}

// dataName is a data set's short name: the built-in's name or the file's.
func dataName(spec string) string {
	if name, ok := strings.CutPrefix(spec, "builtin:"); ok {
		return name
	}
	return filepath.Base(spec)
}

// padRight pads s with spaces to w cells (a name may hold wide characters,
// which %-*s would count as one).
func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(w-lipgloss.Width(s), 0))
}
