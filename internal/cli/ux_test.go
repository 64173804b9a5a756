package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpscope/dpscope/core"
)

// TestSweepRefusesGridThatCannotRun: a mistyped --method or --opt is one
// usage error naming it, before any run starts or any data loads (it was a
// table of failed runs, exit 1, after B1 was computed).
func TestSweepRefusesGridThatCannotRun(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "nope"}, `method is "nope"`},
		{[]string{"--method", "test-graded", "--mode", "paper,nonprivate", "--opt", "frob=1"}, `"frob"`},
		{[]string{"--method", "dppca", "--opt", "k=abc"}, `option k is "abc"`},
		{[]string{"--method", "dppca", "--mode", "paper"}, `--mode is "paper"`},
	} {
		code, stdout, stderr := run(t, append([]string{"sweep", "--epsilon", "1", "--seeds", "0"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming %q", tc.args, code, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: printed %q; want nothing run", tc.args, stdout)
		}
	}
	// A grid with some valid runs still runs them and lists the others as
	// failed, as before.
	code, stdout, stderr := run(t, "sweep", "--method", "test-graded,nope", "--epsilon", "1", "--seeds", "0")
	if code != ExitRuntime || !strings.Contains(stdout, "test-graded") || !strings.Contains(stderr, "1 of 2 runs failed") {
		t.Errorf("half-valid grid: exit %d, stdout %q, stderr %q; want the valid run made and one failure", code, stdout, stderr)
	}
}

// TestSweepRefusesMissingData: a --data path that does not exist is one
// error naming it, before any run, not a table of runs that each failed.
func TestSweepRefusesMissingData(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	code, stdout, stderr := run(t, "sweep", "--data", missing, "--method", "test-graded", "--epsilon", "1,2", "--seeds", "0-1")
	if code == 0 || !strings.Contains(stderr, "--data "+missing) || !strings.Contains(stderr, "no such file") {
		t.Errorf("exit %d, stderr %q; want an error naming --data %s", code, stderr, missing)
	}
	if stdout != "" || strings.Contains(stderr, "runs failed") {
		t.Errorf("stdout %q, stderr %q; want no run made", stdout, stderr)
	}
}

// TestSeedsBackwardsRangeSaysSo: --seeds 5-1 says the range runs
// backwards, not that 5-1 is not an integer.
func TestSeedsBackwardsRangeSaysSo(t *testing.T) {
	_, err := parseSeeds("0,5-1")
	if err == nil || !strings.Contains(err.Error(), "backwards") || !strings.Contains(err.Error(), "1-5") {
		t.Errorf("parseSeeds(5-1) = %v; want an error saying the range runs backwards and offering 1-5", err)
	}
}

// TestPreprocessFlagErrorsNameTheFlag: a bad preprocessing flag's error
// names the flag (datasets' own message names its field: "n top genes").
func TestPreprocessFlagErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct{ cmd, flag, v string }{
		{"run", "genes", "0"}, {"run", "min-cells", "-1"}, {"sweep", "genes", "-5"},
		{"run", "target-sum", "NaN"}, {"run", "max-value", "-2"}, {"run", "selection", "pca"},
	} {
		code, _, stderr := run(t, tc.cmd, "--method", "test-graded", "--"+tc.flag, tc.v)
		if code != ExitUsage || !strings.Contains(stderr, "--"+tc.flag+":") {
			t.Errorf("%s --%s %s: exit %d, %q; want a usage error naming --%s", tc.cmd, tc.flag, tc.v, code, stderr, tc.flag)
		}
	}
}

// TestUsageHintNamesTheCommand: the hint after a usage error points at
// the help of the command that refused the input.
func TestUsageHintNamesTheCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--epsilon", "-1"}, "Run 'dpscope run --help' for usage."},
		{[]string{"sweep", "--seeds", "x"}, "Run 'dpscope sweep --help' for usage."},
		{[]string{"run", "--frob"}, "Run 'dpscope run --help' for usage."},
		{[]string{"frob"}, "Run 'dpscope --help' for usage."},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestFlagHelpHasNoBackquotes: pflag reads a `quoted` word in a flag's
// usage as the name of its value, so "(`dpscope methods` describes them)"
// printed as "--method dpscope methods   method: …" in run --help. And
// every command's --data help lists the same formats.
func TestFlagHelpHasNoBackquotes(t *testing.T) {
	root := newRootCmd(Env{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: usage %q has a backquote", c.CommandPath(), f.Name, f.Usage)
			}
			if f.Name == "data" && f.Usage != dataFlagUsage {
				t.Errorf("%s --data: usage %q, want %q", c.CommandPath(), f.Usage, dataFlagUsage)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	// And what the user reads: the method flag's line.
	code, stdout, _ := run(t, "run", "--help")
	if code != ExitOK {
		t.Fatalf("run --help: exit %d", code)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--method ") && !strings.HasPrefix(strings.TrimSpace(l), "--method string") {
			t.Errorf("run --help: %q; want --method string", strings.TrimSpace(l))
		}
	}
}

// TestRunValueErrorsNameTheFlag: core names the field ("epsilon is -1");
// the error names the flag to change, and a value from --config is not
// blamed on a flag.
func TestRunValueErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct{ flag, v, want string }{
		{"epsilon", "0", "--epsilon: "}, {"epsilon", "-1", "--epsilon: "}, {"delta", "1", "--delta: "},
		{"sigma", "-1", "--sigma: "}, {"clip", "0", "--clip: "}, {"q", "2", "--q: "}, {"accountant", "foo", "--accountant: "},
	} {
		code, _, stderr := run(t, "run", "--method", "test-graded", "--"+tc.flag, tc.v)
		if code != ExitUsage || !strings.HasPrefix(stderr, "dpscope: "+tc.want) {
			t.Errorf("run --%s %s: exit %d, %q; want a usage error starting %q", tc.flag, tc.v, code, stderr, tc.want)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(file, []byte("method = \"test-graded\"\ndelta = 2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "run", "--config", file, "--epsilon", "2")
	if code != ExitUsage || strings.Contains(stderr, "--epsilon:") || !strings.Contains(stderr, "delta is 2") {
		t.Errorf("bad delta in --config: exit %d, %q; want it named, not --epsilon", code, stderr)
	}
}

// TestUnknownFlagThatIsAnOption: --k, the first thing a user tries for
// the number of clusters, is an option: the error says how to set it.
func TestUnknownFlagThatIsAnOption(t *testing.T) {
	for _, args := range [][]string{{"run", "--k", "5"}, {"sweep", "--k=5"}} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "unknown flag: --k") || !strings.Contains(stderr, "--opt k=VALUE") {
			t.Errorf("%v: exit %d, %q; want the unknown flag and --opt k=VALUE", args, code, stderr)
		}
	}
	for _, args := range [][]string{{"run", "--frob"}, {"data", "inspect", "--k", "3"}} {
		if _, _, stderr := run(t, args...); strings.Contains(stderr, "--opt") {
			t.Errorf("%v: %q suggests --opt", args, stderr)
		}
	}
}

// TestMethodsByName: `dpscope methods dppca` describes dppca alone (it
// was "unknown command"), an unknown name lists the known ones.
func TestMethodsByName(t *testing.T) {
	code, stdout, stderr := run(t, "methods", "dppca")
	if code != ExitOK || !strings.HasPrefix(stdout, "dppca (") || strings.Contains(stdout, "\ndcan (") {
		t.Errorf("methods dppca: exit %d, %q, %q; want dppca alone", code, stdout, stderr)
	}
	code, _, stderr = run(t, "methods", "nope")
	if code != ExitUsage || !strings.Contains(stderr, `method is "nope"`) || !strings.Contains(stderr, "dppca") {
		t.Errorf("methods nope: exit %d, %q; want a usage error listing the methods", code, stderr)
	}
	code, stdout, _ = run(t, "methods", "--json", "dppca", "dcan")
	if code != ExitOK || strings.Count(stdout, `"name": "`) != 2 {
		t.Errorf("methods --json dppca dcan: exit %d, %d names", code, strings.Count(stdout, `"name": "`))
	}
}

// TestUnreadFlagsWarn: --clip or --layers given to a method that does not
// read them (dcan-sound: its options set its clip and schedule) ran as if
// taken (dppca, which reads none of them, likewise); the run now warns,
// and a flag the method reads does not.
func TestUnreadFlagsWarn(t *testing.T) {
	set := func(names ...string) func(string) bool {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	got := unreadFlags(core.Config{Method: "dppca"}, set("clip", "layers", "epsilon"))
	if !slices.Equal(got, []string{"--clip", "--layers"}) {
		t.Errorf("dppca: %v, want [--clip --layers]", got)
	}
	if got := unreadFlags(core.Config{Method: "dcan"}, set("clip", "layers", "sigma", "q", "lr")); len(got) != 0 {
		t.Errorf("dcan reads them all, got %v", got)
	}
	if _, err := core.LookupMethod("dpmd"); err == nil {
		if got := unreadFlags(core.Config{Method: "dpmd"}, set("sigma")); len(got) != 0 {
			t.Errorf("dpmd's --sigma sets its option sigma, got %v", got)
		}
	}
	_, _, stderr := run(t, "run", "--method", "test-graded", "--no-reference", "--clients", "3")
	if !strings.Contains(stderr, "warning: method test-graded does not read --clients") {
		t.Errorf("stderr %q; want the warning", stderr)
	}
}

// TestConfigErrorsSayItOnce: a bad value's error names the flag and what
// the value must be, without the sentinels' words or a repeated method
// name ("core: dcan: dcan: invalid configuration: core: layer range …").
func TestConfigErrorsSayItOnce(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--method", "dppca", "--delta", "2"}, "dpscope: --delta: delta is 2, must be in (0, 1)"},
		{[]string{"run", "--method", "dcan", "--mode", "paper", "--layers", "9-12"}, "dpscope: core: dcan: layer range is 9-12, must satisfy 1 ≤ first ≤ last ≤ 6"},
		{[]string{"run", "--method", "dppca", "--opt", "p=0"}, "dpscope: core: dppca: option p is 0, must be ≥ 1"},
		{[]string{"run", "--method", "dppca", "--genes", "0"}, "dpscope: --genes: n top genes is 0, must be ≥ 1"},
		{[]string{"run", "--method", "fl", "--mode", "nonprivate", "--opt", "split=noniid:0"}, "dpscope: core: fl: split is \"noniid:0\", must be noniid:S with S ≥ 1 classes per client"},
		{[]string{"run", "--method", "fedsc", "--opt", "split=bogus"}, "dpscope: core: fedsc: split is \"bogus\", must be iid, equal, noniid:S or dirichlet:ALPHA"},
		{[]string{"run", "--method", "dpmd", "--data", "manifold:bogus"}, "dpscope: core: dpmd: manifold is \"bogus\", must be circle, sphere, torus or swissroll"},
		// more clients than cells: refused up front, named by its flag (exit 2)
		{[]string{"run", "--method", "fl", "--mode", "nonprivate", "--clients", "100000"}, "dpscope: --clients 100000: clients must be ≤ the 2000 cells of builtin:default"},
		{[]string{"sweep", "--method", "fl", "--mode", "nonprivate", "--clients", "100000", "--epsilon", "1", "--seeds", "0"}, "dpscope: --clients 100000: clients must be ≤ the 2000 cells of builtin:default"},
	} {
		code, _, stderr := run(t, tc.args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code == 0 || first != tc.want {
			t.Errorf("%v: exit %d, first line %q; want %q", tc.args, code, first, tc.want)
		}
	}
}

// TestFlagValueErrorsSayWhat: a flag value that does not parse is named
// with the flag and the value as typed and what it must be, not with
// strconv's words ("strconv.ParseFloat: parsing "abc": invalid syntax").
func TestFlagValueErrorsSayWhat(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--method", "dppca", "--epsilon", "abc"}, "dpscope: --epsilon abc: not a number"},
		{[]string{"run", "--method", "dppca", "--seed", "-1"}, "dpscope: --seed -1: not a whole number ≥ 0"},
		{[]string{"run", "--method", "dppca", "--seed", "99999999999999999999999"}, "dpscope: --seed 99999999999999999999999: out of range"},
		{[]string{"sweep", "--method", "dppca", "--jobs", "x"}, "dpscope: --jobs x: not a whole number"},
		{[]string{"run", "--method", "dppca", "--json=maybe"}, "dpscope: --json maybe: not true or false"},
	} {
		code, _, stderr := run(t, tc.args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != ExitUsage || first != tc.want {
			t.Errorf("%v: exit %d, first line %q; want exit %d, %q", tc.args, code, first, ExitUsage, tc.want)
		}
	}
}

// TestSweepTakesManifoldSpecs: sweep's up-front data check leaves dpmd's
// synthetic manifolds ("manifold:circle?…") alone: they are no path, and
// the check refused every such sweep as "no such file".
func TestSweepTakesManifoldSpecs(t *testing.T) {
	code, stdout, stderr := run(t, "sweep", "--method", "dpmd", "--mode", "paper", "--data", "manifold:circle?n=300&queries=20&sigma=0.1", "--epsilon", "8", "--seeds", "0", "--json")
	if code != 0 || strings.Contains(stderr, "no such file") || !strings.Contains(stdout, `"sweep"`) {
		t.Errorf("exit %d, stderr %q, stdout %q; want the sweep's runs and its final line", code, stderr, stdout)
	}
}

// TestRunRefusesMissingData: a --data that is not there is one error
// naming it before anything of the run is shown (exit 1, as a run that
// fails to read its data), not a failed run's summary.
func TestRunRefusesMissingData(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.csv")
	for _, tc := range []struct{ data, want string }{
		{"builtin:nope", "dpscope: --data builtin:nope: no such built-in data set; there are "},
		{missing, "dpscope: --data " + missing + ": no such file or directory"},
	} {
		code, stdout, stderr := run(t, "run", "--method", "dppca", "--data", tc.data)
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("--data %s: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, %q", tc.data, code, stdout, stderr, tc.want)
		}
	}
}

// TestDataNotThereSaysSo: the interface's --data and data inspect's
// argument say plainly that a data set is not there, naming what was
// typed, without the loader's "datasets: open: stat" words.
func TestDataNotThereSaysSo(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", missing}, "dpscope: --data " + missing + ": no such file or directory"},
		{[]string{"data", "inspect", missing}, "dpscope: " + missing + ": no such file or directory"},
		{[]string{"data", "inspect", "builtin:x"}, "dpscope: builtin:x: no such built-in data set; there are "},
	} {
		code, _, stderr := run(t, tc.args...)
		if code == 0 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}
