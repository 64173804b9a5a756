package report

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

func sample() Doc {
	return Doc{
		Title: "Sweep of builtin:default", Version: "v1.2.3", Kind: "sweep",
		Data: []Item{{"data set", "builtin:default"}, {"cells × genes", "2000 × 1942"}},
		Methods: []Method{{Name: "dppca", Title: "DP-PCA + DP k-means", Mode: "sound", Runs: 6,
			Guarantees: []Guarantee{{Status: "formal", Runs: 6, Reasons: []string{"GDP composition", "K is <script>public</script>"}}}}},
		Table:   &Table{Header: []string{"method", "mode", "ε", "ARI"}, Rows: [][]string{{"dppca", "sound", "1", "0.5 ± 0.1"}, {"dppca", "sound", "8", "0.6|x"}}, Notes: []string{"B1: 0.69"}},
		Figures: []Figure{{Name: "tradeoff_ari", Caption: "ARI against ε", PNG: []byte("\x89PNG fake"), File: "figures/tradeoff_ari.png"}},
		Commands: []Command{{What: "Run the sweep again:", Line: "dpscope sweep --config base.toml --out DIR",
			Files: []File{{Name: "base.toml", Content: "data = \"x\"\n```\n"}}}},
		Notes: []string{"privacy of the whole sweep: ε ≤ 31.5"},
	}
}

func TestHTMLSelfContained(t *testing.T) {
	var buf bytes.Buffer
	if err := sample().HTML(&buf); err != nil {
		t.Fatal(err)
	}
	h := buf.String()
	for _, bad := range []string{"<script>", "<link", `src="http`, `href="http`, "@import"} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML holds %q: not self-contained or not escaped", bad)
		}
	}
	m := regexp.MustCompile(`src="data:image/png;base64,([^"]+)"`).FindStringSubmatch(h)
	if m == nil {
		t.Fatal("no inlined PNG")
	}
	if b, err := base64.StdEncoding.DecodeString(m[1]); err != nil || string(b) != "\x89PNG fake" {
		t.Errorf("inlined PNG decodes to %q, %v", b, err)
	}
	for _, want := range []string{"K is &lt;script&gt;public&lt;/script&gt;", "guarantee: formal", "<td>0.5 ± 0.1</td>", "dpscope sweep --config base.toml --out DIR", "ε ≤ 31.5"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if n := strings.Count(h, "<tr>"); n != 3 {
		t.Errorf("%d table rows, want a header and 2", n)
	}
}

func TestMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := sample().Markdown(&buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"# Sweep of builtin:default\n",
		"| method | mode | ε | ARI |\n|---|---|---|---|\n| dppca | sound | 1 | 0.5 ± 0.1 |\n| dppca | sound | 8 | 0.6\\|x |\n",
		"![tradeoff\\_ari](figures/tradeoff_ari.png)",
		"- K is \\<script\\>public\\</script\\>\n",
		"````\ndata = \"x\"\n```\n````\n", // a fence longer than the file's own
		"```sh\ndpscope sweep --config base.toml --out DIR\n```",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestMdEscape(t *testing.T) {
	if got := mdEscape("a_b|c\nd*"); got != `a\_b\|c d\*` {
		t.Errorf("mdEscape = %q", got)
	}
	if fence("no ticks") != "```" || fence("a ```` b") != "`````" {
		t.Errorf("fences %q %q", fence("no ticks"), fence("a ```` b"))
	}
}
