package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportSweep writes the report of a sweep folder and runs its
// reproduce command: the new sweep must have the same grid (the manifest's
// hash covers the base settings and every axis).
func TestReportSweep(t *testing.T) {
	dir := gradedSweep(t)
	code, stdout, stderr := run(t, "report", dir, "--no-reference")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"report.html", "report.md", "figures/tradeoff_ari.png", "figures/tradeoff_nmi.svg"} {
		if !strings.Contains(stdout, filepath.Join(dir, f)) {
			t.Errorf("%s not written (stdout %q)", f, stdout)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"guarantee: formal", "guarantee: none", "data:image/png;base64,", "<td>0.510 ± 0.010</td>", "basic composition"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(html), "src=\"figures/") {
		t.Error("report.html links a figure file instead of inlining it")
	}
	for _, want := range []string{"| test-graded | sound | 1 | — | 3 | 0.510 ± 0.010 | 0.610 ± 0.010 | 1 | formal | — |", "![tradeoff\\_ari](figures/tradeoff_ari.png)", "--seeds 0,1,2"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	// Reproduce: the base config file and the command, as the report gives them.
	fd, err := loadFolder(t.Context(), dir, figureOptions{metrics: []string{"ari"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := sweepDoc(fd)
	work := t.TempDir()
	base := doc.Commands[0].Files[0]
	if base.Name != baseConfigName || !strings.Contains(string(md), strings.TrimRight(base.Content, "\n")) {
		t.Fatalf("the report does not show %s in full", baseConfigName)
	}
	os.WriteFile(filepath.Join(work, baseConfigName), []byte(base.Content), 0o644)
	args := sweepCommand(fd.sweep.manifest.Grid, filepath.Join(work, "again"))
	if line := doc.Commands[0].Line; line != shellLine(sweepCommand(fd.sweep.manifest.Grid, "NEW_DIR")) {
		t.Errorf("command line %q", line)
	}
	for i, a := range args {
		if a == baseConfigName {
			args[i] = filepath.Join(work, baseConfigName)
		}
	}
	if code, _, stderr := run(t, args[1:]...); code != ExitOK {
		t.Fatalf("reproduce %q: exit %d: %s", args, code, stderr)
	}
	read := func(d string) sweepManifest {
		b, err := os.ReadFile(filepath.Join(d, manifestName))
		if err != nil {
			t.Fatal(err)
		}
		var m sweepManifest
		json.Unmarshal(b, &m)
		return m
	}
	if a, b := read(dir), read(filepath.Join(work, "again")); a.Hash != b.Hash {
		t.Errorf("reproduced grid %s differs from the sweep's %s", b.Hash, a.Hash)
	}
}

func TestReportRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := run(t, "run", "--method", "test-scripted", "--no-reference", "--out", dir); code != ExitOK {
		t.Fatalf("run: %s", stderr)
	}
	if code, _, stderr := run(t, "report", dir, "--no-labels"); code != ExitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"**guarantee: formal**", "- test reason", "| ε audited (RDP) | 1.1 |", "| ARI | 0.5000 |", "dpscope run --config config.toml --out NEW_DIR", "![training](figures/training.png)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	// The report and figures do not stop the run folder from being replaced.
	if code, _, stderr := run(t, "run", "--method", "test-scripted", "--no-reference", "--out", dir, "--force"); code != ExitOK {
		t.Errorf("run --force over a reported folder: %s", stderr)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"a,b": "a,b", "two words": "'two words'", "it's": `'it'\''s'`, "": "''", "$HOME": "'$HOME'"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
