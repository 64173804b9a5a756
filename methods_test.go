package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/core/method/sounddcan"
	"github.com/dpscope/dpscope/internal/cli"
)

// TestRegisteredMethods checks what main's blank imports register, as
// `dpscope methods --json` prints it: the eight methods in list order, their
// modes, the live options, and a guarantee reading for every mode.
func TestRegisteredMethods(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := cli.Execute(context.Background(), []string{"methods", "--json"}, cli.Env{Stdout: &stdout, Stderr: &stderr}); code != cli.ExitOK {
		t.Fatalf("methods --json: exit %d: %s", code, stderr.String())
	}
	var ms []struct {
		Name    string
		Family  string
		Modes   []string
		Options []struct {
			Key  string
			Live bool
		}
		Guarantee []struct {
			Mode, Status string
			Reasons      []string
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &ms); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
		if len(m.Guarantee) != len(m.Modes) {
			t.Errorf("%s: %d guarantee readings for %d modes", m.Name, len(m.Guarantee), len(m.Modes))
		}
		for _, g := range m.Guarantee {
			if g.Status == "" || len(g.Reasons) == 0 {
				t.Errorf("%s %s: no expected guarantee", m.Name, g.Mode)
			}
		}
		var live []string
		for _, o := range m.Options {
			if o.Live {
				live = append(live, o.Key)
			}
		}
		if want := map[string]string{"dpmd": "h d T theta", "dppca": "p T clip"}[m.Name]; strings.Join(live, " ") != want {
			t.Errorf("%s live options %v, want %q", m.Name, live, want)
		}
	}
	if want := []string{"dcan", "dcan-sound", "dpmd", "fl", "fl-dp", "ppml-omics", "fedsc", "dppca"}; !slices.Equal(names, want) {
		t.Errorf("methods %v, want %v", names, want)
	}
	for _, m := range ms {
		if want := map[string]string{"fedsc": "nonprivate,sound", "dppca": "sound,nonprivate"}[m.Name]; want != "" && strings.Join(m.Modes, ",") != want {
			t.Errorf("%s modes %v, want %s", m.Name, m.Modes, want)
		}
	}
}

// TestOptionSpecsMatchParse checks, for the methods whose engines read
// their options through a key list of their own, that the registered specs
// (what --opt accepts and `dpscope methods` lists) name exactly those keys:
// an option Parse knows but the specs miss is unreachable from the command
// line and the interface.
func TestOptionSpecsMatchParse(t *testing.T) {
	for name, keys := range map[string][]string{"dppca": dppca.Keys, "dcan-sound": sounddcan.Keys} {
		m, err := core.LookupMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		var specs []string
		for _, o := range m.Options {
			specs = append(specs, o.Key)
		}
		slices.Sort(specs)
		want := slices.Sorted(slices.Values(keys))
		if !slices.Equal(specs, want) {
			t.Errorf("%s: registered option keys %v, Parse's keys %v", name, specs, want)
		}
	}
}
