package tui

import (
	"regexp"
	"strings"

	"github.com/dpscope/dpscope/tui/styles"
)

var (
	boldRe = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	codeRe = regexp.MustCompile("`([^`]+)`")
	itemRe = regexp.MustCompile(`^(\s*)([-*]|\d+\.)\s+(.*)$`)
)

// renderMarkdown renders the markdown subset of the lessons — headings,
// paragraphs, "-" and "1." lists, **bold** and `code` — in width w, with
// the theme's styles. Paragraphs and list items are re-wrapped.
func renderMarkdown(src string, st styles.Styles, w int) string {
	var out []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, wrap(inline(strings.Join(para, " "), st), w)...)
			out = append(out, "")
			para = nil
		}
	}
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " ")
		switch {
		case strings.TrimSpace(l) == "":
			flush()
		case strings.HasPrefix(l, "# "):
			flush()
			out = append(out, wrap(st.H1.Render(strings.TrimPrefix(l, "# ")), w)...)
			out = append(out, "")
		case strings.HasPrefix(l, "## "):
			flush()
			out = append(out, wrap(st.H2.Render(strings.TrimPrefix(l, "## ")), w)...)
		case itemRe.MatchString(l):
			flush()
			m := itemRe.FindStringSubmatch(l)
			text := m[3]
			// Continuation lines are indented under the item.
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") && !itemRe.MatchString(lines[i+1]) {
				i++
				text += " " + strings.TrimSpace(lines[i])
			}
			bullet := "• "
			if m[2] != "-" && m[2] != "*" {
				bullet = m[2] + " "
			}
			indent := strings.Repeat(" ", len(m[1])+2)
			for j, wl := range wrap(inline(text, st), max(w-len(indent), 8)) {
				if j == 0 {
					out = append(out, m[1]+bullet+wl)
				} else {
					out = append(out, indent+wl)
				}
			}
			if i+1 >= len(lines) || !itemRe.MatchString(lines[i+1]) {
				out = append(out, "")
			}
		default:
			para = append(para, strings.TrimSpace(l))
		}
	}
	flush()
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// inline styles **bold** and `code` spans.
func inline(s string, st styles.Styles) string {
	s = boldRe.ReplaceAllStringFunc(s, func(m string) string { return st.Emph.Render(m[2 : len(m)-2]) })
	return codeRe.ReplaceAllStringFunc(s, func(m string) string { return st.Code.Render(m[1 : len(m)-1]) })
}
