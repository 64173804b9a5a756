package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// mdEscape keeps text from being read as Markdown markup or breaking a
// table cell: it escapes the characters that start markup and turns line
// breaks into spaces.
func mdEscape(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]<>|#", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fence returns a code fence longer than any run of backticks in s, so a
// file's content cannot close its own block.
func fence(s string) string {
	n, run := 3, 0
	for _, r := range s {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", n)
}

// Markdown writes the report as GitHub-flavoured Markdown; figures are
// linked by their File.
func (d Doc) Markdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("# %s\n\n", mdEscape(d.Title))
	p("Written by dpscope %s from a %s folder. Metrics (ARI, NMI) use the true labels of the data: exploration only, covered by no guarantee.\n\n", mdEscape(d.Version), d.Kind)
	p("## Data\n\n")
	for _, it := range d.Data {
		p("- **%s**: %s\n", mdEscape(it.Label), mdEscape(it.Value))
	}
	p("\n## Methods, modes and guarantees\n\n")
	for _, m := range d.Methods {
		p("### %s (%s), mode %s — %d run(s)\n\n", mdEscape(m.Title), mdEscape(m.Name), mdEscape(m.Mode), m.Runs)
		for _, g := range m.Guarantees {
			p("**guarantee: %s**", mdEscape(g.Status))
			if g.Runs > 0 {
				p(" (%d run(s))", g.Runs)
			}
			p("\n\n")
			for _, r := range g.Reasons {
				p("- %s\n", mdEscape(r))
			}
			if len(g.Reasons) > 0 {
				p("\n")
			}
		}
	}
	if t := d.Table; t != nil {
		p("## Results\n\n|")
		for _, h := range t.Header {
			p(" %s |", mdEscape(h))
		}
		p("\n|")
		for range t.Header {
			p("---|")
		}
		p("\n")
		for _, r := range t.Rows {
			p("|")
			for _, c := range r {
				p(" %s |", mdEscape(c))
			}
			p("\n")
		}
		p("\n")
		for _, n := range t.Notes {
			p("%s\n\n", mdEscape(n))
		}
	}
	if len(d.Figures) > 0 {
		p("## Figures\n\n")
		for _, f := range d.Figures {
			p("![%s](%s)\n\n*%s*\n\n", mdEscape(f.Name), f.File, mdEscape(f.Caption))
		}
	}
	if len(d.Notes) > 0 {
		p("## Notes\n\n")
		for _, n := range d.Notes {
			p("- %s\n", mdEscape(n))
		}
		p("\n")
	}
	p("## Reproduce\n\n")
	for _, c := range d.Commands {
		p("%s\n\n", mdEscape(c.What))
		for _, f := range c.Files {
			fc := fence(f.Content)
			p("`%s`:\n\n%s\n%s\n%s\n\n", f.Name, fc, strings.TrimRight(f.Content, "\n"), fc)
		}
		fc := fence(c.Line)
		p("%ssh\n%s\n%s\n\n", fc, c.Line, fc)
	}
	return bw.Flush()
}
