package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// badCase is one bad input of issue 14's proof: a command line (with {d}
// for the fixture folder and {out} for a folder holding a finished run's
// results), what it must exit with, and a piece of text naming the input
// that the message must contain. Every case ends with the result folder
// byte-identical.
type badCase struct {
	name  string
	args  []string
	code  int
	msg   string
	env   string        // "full" (stdout fails with ENOSPC), "pipe" (EPIPE) or ""
	stop  time.Duration // cancel the context after this long (a signal)
	other bool          // fixed in another helper's area (accountant, engines)
}

// fixtures are the files {d}/NAME of the bad-input table.
var fixtures = map[string]string{
	"ragged.csv":       "gene,c1,c2\ng1,1,2\ng2,1\n",
	"nan.csv":          "gene,c1,c2\ng1,1,NaN\ng2,1,2\n",
	"inf.csv":          "gene,c1,c2\ng1,1,Inf\ng2,1,2\n",
	"text.csv":         "gene,c1,c2\ng1,1,two\ng2,1,2\n",
	"emptyval.csv":     "gene,c1,c2\ng1,1,\ng2,1,2\n",
	"empty.csv":        "",
	"header.csv":       "gene,c1,c2\n",
	"onlyid.csv":       "gene\ng1\n",
	"headerless.csv":   "g1,0,3,1\ng2,1,0,0\ng3,2,2,0\n",
	"dupcells.csv":     "gene,c1,c1\ng1,1,2\ng2,1,2\ng3,0,1\n",
	"emptyid.csv":      "gene,c1,c2\n,1,2\ng2,1,2\n",
	"quote.csv":        "gene,c1,c2\ng1,\"1,2\n",
	"binary.csv":       "\x00\x01\x02\xff\xfe\n\x00\x00",
	"huge.csv":         "gene,c1,c2\ng1,1e400,1\n",
	"badgz.csv.gz":     "\x1f\x8b\x08\x00garbage",
	"config.toml":      "method = \"test-scripted\"\n",
	"unknown.toml":     "epsilonn = 3\n",
	"syntax.toml":      "epsilon = = 3\n",
	"type.toml":        "epsilon = \"high\"\n",
	"negseed.toml":     "seed = -1\n",
	"floatseed.toml":   "seed = 2.5\n",
	"bigseed.toml":     "seed = 18446744073709551615\n",
	"nul.toml":         "epsilon = 3\x00\n",
	"negeps.toml":      "method = \"test-scripted\"\nepsilon = -1\n",
	"delta.toml":       "method = \"test-scripted\"\ndelta = 2.0\n",
	"mode.toml":        "method = \"test-scripted\"\nmode = \"secret\"\n",
	"method.toml":      "method = \"nope\"\n",
	"layers.toml":      "method = \"test-scripted\"\nlayers = \"one\"\n",
	"layers0.toml":     "method = \"dcan\"\nmode = \"paper\"\nlayers = \"0\"\n",
	"q.toml":           "method = \"test-scripted\"\nsample_rate = 0.0\n",
	"acct.toml":        "method = \"test-scripted\"\naccountant = \"moments\"\n",
	"clients.toml":     "method = \"test-scripted\"\nclients = -2\n",
	"epochs.toml":      "method = \"test-scripted\"\nepochs = [-1]\n",
	"lr.toml":          "method = \"test-scripted\"\nlearning_rate = -0.1\n",
	"sigma.toml":       "method = \"test-scripted\"\nsigma = -3.0\n",
	"clip.toml":        "method = \"test-scripted\"\nclip = 0.0\n",
	"nodata.toml":      "method = \"test-scripted\"\ndata = \"\"\n",
	"opts.toml":        "method = \"test-scripted\"\n[options]\nx = 1\n",
	"labels_dup.tsv":   "AAAC-1\tT\nAAAC-1\tB\n",
	"labels_nolab.tsv": "AAAC-1\t\nAAAG-1\tB\n",
	"labels_none.tsv":  "ZZZ\tT\nYYY\tB\n",
	"labels_empty.tsv": "",
}

// tenxFolders are MTX folders {d}/NAME/ with one thing wrong each; the
// others files are those of a valid 3 genes × 2 cells folder.
var tenxFolders = map[string]map[string]string{
	"tenx_nomatrix":   {"matrix.mtx": ""},
	"tenx_nofeatures": {"features.tsv": ""},
	"tenx_nobarcodes": {"barcodes.tsv": ""},
	"tenx_header":     {"matrix.mtx": "%%MatrixMarket matrix array real general\n3 2\n1\n2\n3\n4\n5\n6\n"},
	"tenx_count":      {"matrix.mtx": "%%MatrixMarket matrix coordinate integer general\n3 2 5\n1 1 1\n"},
	"tenx_range":      {"matrix.mtx": "%%MatrixMarket matrix coordinate integer general\n3 2 1\n4 1 1\n"},
	"tenx_shape":      {"matrix.mtx": "%%MatrixMarket matrix coordinate integer general\n4 2 1\n1 1 1\n"},
	"tenx_nan":        {"matrix.mtx": "%%MatrixMarket matrix coordinate real general\n3 2 1\n1 1 nan\n"},
	"tenx_dupentry":   {"matrix.mtx": "%%MatrixMarket matrix coordinate integer general\n3 2 2\n1 1 1\n1 1 2\n"},
	"tenx_dupbc":      {"barcodes.tsv": "AAAC-1\nAAAC-1\n"},
	"tenx_dupfeat":    {"features.tsv": "ENSG1\tA\nENSG2\tB\nENSG1\tC\n"},
	"tenx_emptyfeat":  {"features.tsv": "ENSG1\tA\n\nENSG3\tC\n"},
	"tenx_nolabels":   {"labels.tsv": "ZZZ\tT\nYYY\tB\n"},
	"tenx_duplabel":   {"labels.tsv": "AAAC-1\tT\nAAAC-1\tB\n"},
	"tenx_truncgz":    {"matrix.mtx.gz": "truncated"},
}

var tenxBase = map[string]string{
	"matrix.mtx":   "%%MatrixMarket matrix coordinate integer general\n3 2 3\n1 1 1\n3 1 2\n2 2 3\n",
	"features.tsv": "ENSG1\tA1\nENSG2\tB2\nENSG3\tC3\n",
	"barcodes.tsv": "AAAC-1\nAAAG-1\n",
}

// writeFixtures creates the fixture files and folders in dir.
func writeFixtures(t *testing.T, dir string) {
	t.Helper()
	for name, s := range fixtures {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := bytes.Repeat([]byte("# padding\n"), maxConfigSize/10+1)
	os.WriteFile(filepath.Join(dir, "big.toml"), big, 0o644)
	os.Mkdir(filepath.Join(dir, "folder.toml"), 0o755)
	os.WriteFile(filepath.Join(dir, "afile"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "emptydir"), 0o755)
	os.Mkdir(filepath.Join(dir, "foreign"), 0o755)
	os.WriteFile(filepath.Join(dir, "foreign", "notes.txt"), []byte("mine"), 0o644)
	for name, change := range tenxFolders {
		sub := filepath.Join(dir, name)
		os.Mkdir(sub, 0o755)
		for f, s := range tenxBase {
			if c, ok := change[f]; ok && c == "" {
				continue
			}
			os.WriteFile(filepath.Join(sub, f), []byte(s), 0o644)
		}
		for f, s := range change {
			if s == "" {
				continue
			}
			if f == "matrix.mtx.gz" {
				os.Remove(filepath.Join(sub, "matrix.mtx"))
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				zw.Write([]byte(tenxBase["matrix.mtx"]))
				zw.Close()
				s = string(b.Bytes()[:b.Len()/2])
			}
			os.WriteFile(filepath.Join(sub, f), []byte(s), 0o644)
		}
	}
	if err := makeFIFO(filepath.Join(dir, "fifo")); err != nil {
		t.Logf("no FIFO: %v", err)
	}
}

// badCases builds the table.
func badCases() []badCase {
	var cs []badCase
	add := func(c badCase) { cs = append(cs, c) }
	runOut := func(args ...string) []string {
		return append(append([]string{"run", "--method", "test-scripted"}, args...), "--out", "{out}", "--force")
	}

	// run: numeric flags.
	for _, f := range []struct {
		flag string
		bad  []string
	}{
		{"epsilon", []string{"NaN", "Inf", "-Inf", "-1", "abc", "1e999", ""}},
		{"delta", []string{"0", "1", "2", "-0.5", "NaN", "Inf", "x"}},
		{"sigma", []string{"-1", "NaN", "Inf", "y"}},
		{"clip", []string{"0", "-1", "NaN", "Inf", "z"}},
		{"q", []string{"0", "1.5", "-0.1", "NaN", "Inf", "q"}},
		{"lr", []string{"-1", "NaN", "Inf", "fast"}},
		{"clients", []string{"-1", "many", "1.5", "99999999999999999999"}},
		{"seed", []string{"-1", "18446744073709551615", "9223372036854775808", "18446744073709551616", "abc", "1.5", ""}},
	} {
		for _, v := range f.bad {
			code := ExitUsage
			msg := v
			if v == "" {
				msg = "--" + f.flag
			}
			add(badCase{name: "run --" + f.flag + " " + v, args: runOut("--"+f.flag, v), code: code, msg: msg})
		}
	}
	// run: string flags.
	for _, v := range []string{"4-2", "1-7", "7"} {
		// Each method checks the range against its own layers.
		add(badCase{name: "run dcan --layers " + v, args: []string{"run", "--method", "dcan", "--mode", "paper", "--layers", v, "--out", "{out}", "--force"}, code: ExitRuntime, msg: v})
	}
	for _, c := range []struct{ flag, v, msg string }{
		{"layers", "0", "0-0"}, {"layers", "0-3", "0-3"}, {"layers", "a", "a"}, {"layers", "", `""`}, {"layers", "1-", "1-"}, {"layers", "-3", "-3"}, {"layers", "1-2-3", "1-2-3"},
		{"epochs", "x", "x"}, {"epochs", "-1", "-1"}, {"epochs", "1,,2", "1,,2"}, {"epochs", "1.5", "1.5"},
		{"epochs", "99999999999999999999", "99999999999999999999"},
		{"mode", "privat", "privat"}, {"mode", "", `""`}, {"mode", "SOUND", "SOUND"},
		{"accountant", "moments", "moments"}, {"accountant", "RDP ", "RDP "},
		{"opt", "novalue", "novalue"}, {"opt", "=v", "=v"}, {"opt", " =v", " =v"},
		{"D", "3", "--D"}, {"n", "5", "--n"}, {"queries", "5", "--queries"}, {"h", "0.1", "--h"},
		{"T", "2", "--T"}, {"theta", "0.5", "--theta"}, {"CP", "1", "--CP"}, {"Cm", "1", "--Cm"},
		{"manifold", "circle", "--manifold"}, {"noise", "ball", "--noise"}, {"d", "1", "--d"},
	} {
		add(badCase{name: "run --" + c.flag + " " + c.v, args: runOut("--"+c.flag, c.v), code: ExitUsage, msg: c.msg})
	}
	for _, m := range []string{"nope", "DCAN", "fl dp"} {
		add(badCase{name: "run --method " + m, args: []string{"run", "--method", m, "--out", "{out}", "--force"}, code: ExitUsage, msg: m})
	}
	add(badCase{name: "run --method empty", args: []string{"run", "--method", "", "--out", "{out}", "--force"}, code: ExitUsage, msg: "method is empty"})
	add(badCase{name: "run --data empty", args: runOut("--data", ""), code: ExitUsage, msg: "data is empty"})
	add(badCase{name: "run unknown flag", args: runOut("--epsilonn", "3"), code: ExitUsage, msg: "--epsilonn"})
	add(badCase{name: "run argument", args: runOut("extra"), code: ExitUsage, msg: "extra"})
	add(badCase{name: "run private without ε or σ", args: runOut("--epsilon", "0"), code: ExitUsage, msg: "epsilon and sigma are both 0"})
	// A method's unknown option is checked against its descriptor before
	// the run: a usage error.
	for _, m := range []string{"dcan", "fl", "fl-dp", "ppml-omics", "fedsc", "dpmd"} {
		add(badCase{name: "run " + m + " --opt bogus", args: []string{"run", "--method", m, "--mode", "nonprivate", "--opt", "bogus=1", "--out", "{out}", "--force"}, code: ExitUsage, msg: "bogus"})
	}
	// Engine-side failures: bad data.
	for _, m := range []string{"dcan", "fl", "fedsc"} {
		for _, data := range []string{"{d}/ragged.csv", "{d}/missing.csv", "{d}/tenx_nomatrix", "builtin:nope", "{d}/headerless.csv"} {
			msg := strings.TrimPrefix(strings.TrimPrefix(data, "{d}/"), "builtin:")
			add(badCase{name: "run " + m + " --data " + msg, args: []string{"run", "--method", m, "--mode", "nonprivate", "--data", data, "--out", "{out}", "--force"}, code: ExitRuntime, msg: msg})
		}
	}

	// run: config files.
	for _, c := range []struct {
		file string
		code int
		msg  string
	}{
		{"missing.toml", ExitRuntime, "missing.toml"}, {"unknown.toml", ExitRuntime, "epsilonn"},
		{"syntax.toml", ExitRuntime, "syntax.toml"}, {"type.toml", ExitRuntime, "type.toml"},
		{"negseed.toml", ExitRuntime, "negseed.toml"}, {"floatseed.toml", ExitRuntime, "floatseed.toml"},
		{"bigseed.toml", ExitRuntime, "bigseed.toml"}, {"nul.toml", ExitRuntime, "nul.toml"},
		{"big.toml", ExitRuntime, "big.toml"}, {"folder.toml", ExitRuntime, "folder.toml"},
		{"negeps.toml", ExitUsage, "negeps.toml"}, {"delta.toml", ExitUsage, "delta.toml"},
		{"mode.toml", ExitUsage, "mode.toml"}, {"method.toml", ExitUsage, "nope"},
		{"layers.toml", ExitRuntime, "layers.toml"}, {"q.toml", ExitUsage, "q.toml"},
		{"acct.toml", ExitUsage, "acct.toml"}, {"clients.toml", ExitUsage, "clients.toml"},
		{"epochs.toml", ExitUsage, "epochs.toml"}, {"lr.toml", ExitUsage, "lr.toml"},
		{"sigma.toml", ExitUsage, "sigma.toml"}, {"clip.toml", ExitUsage, "clip.toml"},
		{"nodata.toml", ExitUsage, "nodata.toml"}, {"opts.toml", ExitRuntime, "opts.toml"},
		{"ragged.csv", ExitRuntime, "ragged.csv"}, {"binary.csv", ExitRuntime, "binary.csv"},
	} {
		args := []string{"run", "--config", "{d}/" + c.file, "--out", "{out}", "--force"}
		add(badCase{name: "run --config " + c.file, args: args, code: c.code, msg: c.msg})
	}
	add(badCase{name: "run --config /dev/zero", args: []string{"run", "--config", "/dev/zero", "--out", "{out}", "--force"}, code: ExitRuntime, msg: "/dev/zero"})

	// run: --out folders.
	add(badCase{name: "--out is a file", args: []string{"run", "--method", "test-scripted", "--out", "{d}/afile"}, code: ExitUsage, msg: "afile"})
	add(badCase{name: "--out under a file", args: []string{"run", "--method", "test-scripted", "--out", "{d}/afile/sub"}, code: ExitRuntime, msg: "afile"})
	add(badCase{name: "--out foreign files", args: []string{"run", "--method", "test-scripted", "--out", "{d}/foreign", "--force"}, code: ExitUsage, msg: "notes.txt"})
	add(badCase{name: "--out results without --force", args: []string{"run", "--method", "test-scripted", "--out", "{out}"}, code: ExitUsage, msg: "--force"})
	add(badCase{name: "--out /dev/null/x", args: []string{"run", "--method", "test-scripted", "--out", "/dev/null/x"}, code: ExitRuntime, msg: "/dev/null"})
	// run: engines that fail or are interrupted.
	add(badCase{name: "engine fails before its first step", args: runOut("--method", "test-fail-early"), code: ExitRuntime, msg: "the engine broke"})
	add(badCase{name: "interrupt before the first step", args: runOut("--method", "test-stuck"), code: ExitRuntime, msg: "interrupted", stop: 30 * time.Millisecond})
	// A run that finished has its results saved even when stdout fails:
	// these write to their own folders.
	add(badCase{name: "stdout full, run", args: []string{"run", "--method", "test-scripted", "--out", "{d}/full1"}, code: ExitRuntime, msg: "no space left", env: "full"})
	add(badCase{name: "stdout full, run --json", args: []string{"run", "--method", "test-scripted", "--json", "--out", "{d}/full2"}, code: ExitRuntime, msg: "no space left", env: "full"})
	add(badCase{name: "broken pipe, run --json", args: []string{"run", "--method", "test-slow", "--json", "--out", "{d}/pipe1"}, code: ExitBrokenPipe, msg: "broken pipe", env: "pipe"})

	// data inspect: files.
	for _, c := range []struct{ path, msg string }{
		{"{d}/ragged.csv", "ragged.csv:3"}, {"{d}/nan.csv", "nan.csv:2"}, {"{d}/inf.csv", "inf.csv:2"},
		{"{d}/text.csv", "text.csv:2"}, {"{d}/emptyval.csv", "emptyval.csv:2"}, {"{d}/empty.csv", "empty.csv"},
		{"{d}/header.csv", "header.csv"}, {"{d}/onlyid.csv", "onlyid.csv"}, {"{d}/headerless.csv", "headerless.csv:1"},
		{"{d}/dupcells.csv", "dupcells.csv"}, {"{d}/emptyid.csv", "emptyid.csv:2"}, {"{d}/quote.csv", "quote.csv"},
		{"{d}/binary.csv", "binary.csv"}, {"{d}/huge.csv", "huge.csv:2"}, {"{d}/badgz.csv.gz", "badgz.csv.gz"},
		{"{d}/missing.csv", "missing.csv"}, {"{d}/emptydir", "emptydir"}, {"{d}/config.toml", "config.toml"},
		{"builtin:nope", "nope"}, {"builtin:", "builtin"}, {"builtin:../default", "../default"}, {"/dev/null", "/dev/null"},
	} {
		add(badCase{name: "inspect " + c.path, args: []string{"data", "inspect", c.path}, code: ExitRuntime, msg: c.msg})
	}
	for name := range tenxFolders {
		add(badCase{name: "inspect " + name, args: []string{"data", "inspect", "{d}/" + name}, code: ExitRuntime, msg: name})
	}
	for _, l := range []string{"labels_dup.tsv", "labels_nolab.tsv", "labels_none.tsv", "labels_empty.tsv", "missing.tsv"} {
		add(badCase{name: "inspect --labels " + l, args: []string{"data", "inspect", "{d}/tenx_nolabels", "--labels", "{d}/" + l}, code: ExitRuntime, msg: l})
	}
	add(badCase{name: "inspect builtin with labels", args: []string{"data", "inspect", "builtin:default", "--labels", "{d}/labels_dup.tsv"}, code: ExitRuntime, msg: "labels_dup.tsv"})
	// data inspect: preprocessing flags.
	for _, c := range []struct{ flag, v, msg string }{
		{"genes", "-3", "-3"}, {"genes", "abc", "abc"}, {"min-genes", "-1", "-1"}, {"min-cells", "-1", "-1"},
		{"min-genes", "x", "x"}, {"selection", "pca", "pca"}, {"selection", "", `""`}, {"orientation", "sideways", "sideways"},
		{"target-sum", "-1", "-1"}, {"target-sum", "NaN", "NaN"}, {"target-sum", "Inf", "Inf"}, {"clip", "-1", "-1"},
		{"clip", "NaN", "NaN"}, {"genes", "99999999999999999999", "99999999999999999999"},
	} {
		add(badCase{name: "inspect --" + c.flag + " " + c.v, args: []string{"data", "inspect", "builtin:default", "--" + c.flag, c.v}, code: ExitUsage, msg: c.msg})
	}
	add(badCase{name: "inspect two paths", args: []string{"data", "inspect", "a", "b"}, code: ExitUsage, msg: "got 2"})
	add(badCase{name: "data frob", args: []string{"data", "frob"}, code: ExitUsage, msg: "frob"})
	add(badCase{name: "root --data missing", args: []string{"--data", "{d}/missing.csv"}, code: ExitRuntime, msg: "missing.csv"})
	add(badCase{name: "root --data ragged", args: []string{"--data", "{d}/ragged.csv"}, code: ExitRuntime, msg: "ragged.csv"})
	add(badCase{name: "root --genes -1", args: []string{"--genes", "-1"}, code: ExitUsage, msg: "-1"})
	add(badCase{name: "stdout full, inspect", args: []string{"data", "inspect", "builtin:default"}, code: ExitRuntime, msg: "no space left", env: "full"})
	add(badCase{name: "stdout full, inspect --json", args: []string{"data", "inspect", "builtin:default", "--json"}, code: ExitRuntime, msg: "no space left", env: "full"})
	add(badCase{name: "broken pipe, inspect", args: []string{"data", "inspect", "builtin:default"}, code: ExitBrokenPipe, msg: "broken pipe", env: "pipe"})
	add(badCase{name: "FIFO without writer, inspect", args: []string{"data", "inspect", "{d}/fifo"}, code: ExitInterrupted, msg: "interrupted", stop: 30 * time.Millisecond})
	add(badCase{name: "FIFO without writer, --config", args: []string{"run", "--config", "{d}/fifo"}, code: ExitInterrupted, msg: "interrupted", stop: 30 * time.Millisecond})
	add(badCase{name: "FIFO without writer, --labels", args: []string{"data", "inspect", "{d}/tenx_nolabels", "--labels", "{d}/fifo"}, code: ExitInterrupted, msg: "interrupted", stop: 30 * time.Millisecond})

	// budget.
	for _, c := range []struct {
		args  []string
		msg   string
		usage bool
	}{
		{[]string{"--q", "0", "--sigma", "1", "--steps", "10"}, "0", false},
		{[]string{"--q", "2", "--sigma", "1", "--steps", "10"}, "2", false},
		{[]string{"--q", "NaN", "--sigma", "1", "--steps", "10"}, "NaN", false},
		{[]string{"--q", "0.1", "--sigma", "0", "--steps", "10"}, "--sigma", false},
		{[]string{"--q", "0.1", "--sigma", "-1", "--steps", "10"}, "-1", false},
		{[]string{"--q", "0.1", "--sigma", "Inf", "--steps", "10"}, "Inf", false},
		{[]string{"--q", "0.1", "--sigma", "1", "--steps", "-5"}, "-5", false},
		{[]string{"--q", "0.1", "--sigma", "1", "--steps", "x"}, "x", true},
		{[]string{"--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "0"}, "0", false},
		{[]string{"--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1"}, "1", false},
		{[]string{"--q", "0.1", "--sigma", "1", "--steps", "10", "--interval", "-1"}, "-1", false},
		{[]string{"--q", "0.1", "--sigma", "1", "--steps", "10", "--orders", "nope"}, "nope", true},
		{[]string{"--q", "0.1", "--sigma", "1", "--steps", "10", "--tradeoff", "--points", "-1"}, "-1", false},
		{[]string{"--q", "0.1", "--sigma", "1"}, "--steps", true},
		{[]string{"--phases", "a:b:c"}, "a:b:c", true},
		{[]string{"--phases", "0.1:1"}, "0.1:1", true},
		{[]string{"--phases", "0.1:1:-5"}, "-5", false},
		{[]string{"--phases", ""}, `item 1 is ""`, true},
		{[]string{"--phases", "0.1:1:10", "--q", "0.1"}, "--phases", true},
		{[]string{"--target-epsilon", "-1", "--q", "0.1", "--steps", "10"}, "-1", false},
		{[]string{"--target-epsilon", "NaN", "--q", "0.1", "--steps", "10"}, "NaN", false},
		{[]string{"--mechanism", "laplace", "--epsilon", "1"}, "laplace", true},
		{[]string{"--mechanism", "gaussian", "--epsilon", "-1"}, "-1", false},
		{[]string{"--mechanism", "gaussian", "--epsilon", "1", "--sensitivity", "0"}, "0", false},
		{[]string{"--rho", "-1"}, "-1", false},
		{[]string{"--rho", "NaN"}, "NaN", false},
		{[]string{"--method", "dcan", "--clients", "3"}, "dcan", true},
		{[]string{"--method", "ppml-omics", "--clients", "0", "--epochs", "5", "--target-epsilon", "5", "--clip", "5"}, "--clients", false},
		{[]string{"--method", "ppml-omics", "--clients", "3", "--epochs", "-1", "--target-epsilon", "5", "--clip", "5"}, "-1", false},
		{[]string{"--tradeoff"}, "say what to compute", true},
		{[]string{}, "say what to compute", true},
	} {
		// The accountant's refusals are runtime errors (exit 1), the
		// command line's own checks usage errors (exit 2).
		code := ExitRuntime
		if c.usage {
			code = ExitUsage
		}
		add(badCase{name: "budget " + strings.Join(c.args, " "), args: append([]string{"budget"}, c.args...), code: code, msg: c.msg})
	}
	add(badCase{name: "stdout full, budget", args: []string{"budget", "--q", "0.1", "--sigma", "2", "--steps", "100"}, code: ExitRuntime, msg: "no space left", env: "full"})
	add(badCase{name: "stdout full, version", args: []string{"version"}, code: ExitRuntime, msg: "no space left", env: "full"})
	add(badCase{name: "stdout full, help", args: []string{"--help"}, code: ExitRuntime, msg: "no space left", env: "full"})
	// The accountant's former failures (10^18 steps printed ε = 0, 10^15
	// panicked in the FFT, σ = 0.01 had no PLD grid) now answer with
	// figures: TestBudgetPrivacyFigures checks them.

	// Cobra-level.
	add(badCase{name: "unknown command", args: []string{"frobnicate"}, code: ExitUsage, msg: "frobnicate"})
	add(badCase{name: "unknown root flag", args: []string{"--frob"}, code: ExitUsage, msg: "--frob"})
	add(badCase{name: "version --frob", args: []string{"version", "--frob"}, code: ExitUsage, msg: "--frob"})
	return cs
}

// TestBadInputs runs the bad-input table of issue 14. The short form runs
// every fourth case and all signal and output cases; DPSCOPE_LONG=1 runs
// them all, including the cases fixed in other packages.
func TestBadInputs(t *testing.T) {
	cases := badCases()
	if len(cases) < 200 {
		t.Fatalf("the table has %d cases, the issue asks for at least 200", len(cases))
	}
	long := os.Getenv("DPSCOPE_LONG") != ""
	d := t.TempDir()
	writeFixtures(t, d)
	out := goodResults(t)
	before := snapshot(t, out)
	for i, c := range cases {
		if c.other && !long {
			continue // fixed in other packages; they fail until merged
		}
		if !long && i%4 != 0 && c.env == "" && c.stop == 0 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			args := make([]string, len(c.args))
			for k, a := range c.args {
				args[k] = strings.NewReplacer("{d}", d, "{out}", out).Replace(a)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.stop > 0 {
				time.AfterFunc(c.stop, cancel)
			}
			var stdout io.Writer = io.Discard
			switch c.env {
			case "full":
				stdout = failWriter{syscall.ENOSPC}
			case "pipe":
				stdout = &pipeAfter{n: 1}
			}
			var errOut bytes.Buffer
			done := make(chan int, 1)
			go func() {
				if c.other {
					// A panic in another package's goroutine would end the
					// whole test binary: run these in a child process.
					done <- executeChild(t, args, &errOut)
					return
				}
				done <- Execute(ctx, args, Env{Stdout: stdout, Stderr: &errOut, LaunchTUI: func(context.Context, *Loaded) error { return nil }})
			}()
			var code int
			select {
			case code = <-done:
			case <-time.After(60 * time.Second):
				t.Fatalf("%q hangs", args)
			}
			msg := errOut.String()
			if code != c.code || !strings.Contains(msg, c.msg) || strings.Contains(msg, "goroutine ") {
				t.Errorf("%q: exit %d, stderr %q; want exit %d and a message naming %q", args, code, msg, c.code, c.msg)
			}
			if after := snapshot(t, out); !equalMaps(before, after) {
				t.Errorf("%q changed the result folder %s", args, out)
				before = after
			}
			noTemporaries(t, out)
		})
	}
}

// childArgs is the environment variable that makes TestExecuteChild run
// dpscope with the unit-separator (0x1f) separated arguments it holds.
const childArgs = "DPSCOPE_TEST_CHILD_ARGS"

// executeChild runs Execute(args) in a child process (this test binary) and
// returns its exit code, with its stderr appended to errOut.
func executeChild(t *testing.T, args []string, errOut *bytes.Buffer) int {
	cmd := exec.Command(os.Args[0], "-test.run=^TestExecuteChild$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join(args, "\x1f"))
	cmd.Stderr = errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Errorf("child process: %v", err)
	}
	return 0
}

// TestExecuteChild is the child process of executeChild; it does nothing in
// a normal test run.
func TestExecuteChild(t *testing.T) {
	v, ok := os.LookupEnv(childArgs)
	if !ok {
		return
	}
	os.Exit(Execute(context.Background(), strings.Split(v, "\x1f"), Env{Stdout: io.Discard, Stderr: os.Stderr}))
}
