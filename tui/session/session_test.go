package session

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/core/sweep"
)

// sample is a session with every kind of event and the non-finite numbers
// plain JSON cannot hold.
func sample() File {
	f, _ := sampleWith()
	return f
}

func sampleWith() (File, []core.Event) {
	eps := 3.0
	evs := []core.Event{
		core.DataEvent{Cells: 200, Genes: 50, Classes: 4},
		core.StageEvent{Stage: 1, Name: "pretrain", Steps: 20},
		core.ClientsEvent{Round: 1, K: 3, Split: "equal", Sizes: []int{5, 5, 6}, Classes: [][]string{{"B"}, {"T"}, {"B", "T"}}},
		core.StepEvent{Stage: 1, Epoch: 1, Step: 1, Loss: math.Inf(1), Parts: []core.NamedValue{{Name: "zinb", Value: math.NaN()}}},
		core.BudgetEvent{Step: 1, Delta: 1e-5, Spent: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 0.5}, {Accountant: "paper", Epsilon: math.Inf(1), Label: "published"}},
			Projected: []core.EpsilonValue{{Accountant: "RDP", Epsilon: 4}}, Target: 4, Sigma: 1.1, Ledger: []core.Mechanism{{Component: "stage 1", SampleRate: 0.1, NoiseMultiplier: 1.1, Steps: 1}}},
		core.MetricsEvent{Stage: 1, Epoch: 1, Step: 10, Values: []core.NamedValue{{Name: "ARI", Value: 0.5}, {Name: "silhouette", Value: math.NaN()}}},
		core.EmbeddingEvent{Step: 10, X: []float64{1, 2}, Y: []float64{3, math.Inf(-1)}, Cluster: []int{0, 1}, Truth: []int{1, -1}},
		core.GuaranteeEvent{Status: core.GuaranteeConditional, Reasons: []string{"labels are public"}},
		core.PatchEvent{Patch: core.Patch{Epsilon: &eps}, Step: 12, Applied: true},
		core.WarningEvent{Message: "slow"},
		core.WarningEvent{Message: "plan: K = 3", Note: true},
		core.DoneEvent{Outcome: core.OutcomeStopped, Stopped: true, Reason: "user", Elapsed: 1500 * time.Millisecond},
		core.ErrorEvent{Err: errors.New("boom")},
	}
	r := Run{ID: 2, Variant: "DP-DCAN paper", Config: core.Config{Data: "builtin:toy", Method: "dcan", Mode: core.ModePaper, Epsilon: 4, Epochs: []int{2, 1}, Seed: 1 << 62, Options: map[string]string{"k": "3"}},
		Params:     map[string]any{"Epsilon": 4.0},
		Summary:    Summary{Outcome: "stopped", ARI: math.NaN(), NMI: 0.25, ACC: math.NaN(), Epsilon: []core.EpsilonValue{{Accountant: "RDP", Epsilon: math.Inf(1)}}},
		References: References{B1: &reference.Line{ARI: 0.7, NMI: 0.8, Seeds: 5}}}
	for _, ev := range evs {
		e, ok := EncodeEvent(ev)
		if !ok {
			panic("not encoded")
		}
		r.Events = append(r.Events, e)
	}
	return File{Version: "test", Saved: "2026-01-01T00:00:00Z", Data: DataSettings{Spec: "builtin:toy"}, Runs: []Run{r},
		Tally: map[string]sweep.Cost{"builtin:toy": {PrivateRuns: 2, EpsilonTotal: 8, Unbounded: 1}}}, evs
}

func TestRoundTripKeepsEveryEventAndNonFiniteNumbers(t *testing.T) {
	f, want := sampleWith()
	b, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format": "dpscope-session"`, `"schema": 1`, `"+Inf"`, `"NaN"`, `"-Inf"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("encoded file lacks %s", want)
		}
	}
	g, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := EncodeEvent(core.ResultEvent{}); ok {
		t.Error("a run's final result is kept; want it left to --out")
	}
	got := g.Runs[0].Decoded
	if len(got) != len(want) {
		t.Fatalf("%d events back, want %d", len(got), len(want))
	}
	for i := range want {
		if fmtEv(got[i]) != fmtEv(want[i]) {
			t.Errorf("event %d: got %s, want %s", i, fmtEv(got[i]), fmtEv(want[i]))
		}
	}
	if e, ok := got[len(got)-1].(core.ErrorEvent); !ok || e.Err.Error() != "boom" {
		t.Errorf("error event back as %#v", got[len(got)-1])
	}
	if s := g.Runs[0].Summary; !math.IsNaN(s.ARI) || s.NMI != 0.25 || !math.IsInf(s.Epsilon[0].Epsilon, 1) {
		t.Errorf("summary back as %+v", s)
	}
	if c := g.Runs[0].Config; c.Seed != 1<<62 || c.Options["k"] != "3" || !reflect.DeepEqual(c.Epochs, []int{2, 1}) || c.Mode != core.ModePaper {
		t.Errorf("config back as %+v", c)
	}
	if g.Tally["builtin:toy"].EpsilonTotal != 8 || g.Runs[0].References.B1.ARI != 0.7 || g.Runs[0].References.Null != nil {
		t.Errorf("tally or references back as %+v, %+v", g.Tally, g.Runs[0].References)
	}
	var p struct{ Epsilon float64 }
	if err := DecodeParams(g.Runs[0].Params, &p); err != nil || p.Epsilon != 4 {
		t.Errorf("params back as %+v, %v", p, err)
	}
}

// fmtEv prints an event with NaN comparable to itself.
func fmtEv(ev core.Event) string {
	switch e := ev.(type) {
	case core.ErrorEvent:
		return "error " + e.Err.Error()
	case core.PatchEvent:
		return e.Patch.String()
	}
	return fmt.Sprintf("%T %+v", ev, ev)
}

func TestDecodeRefusesNewerDamagedAndForeignFiles(t *testing.T) {
	good, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	newer := strings.Replace(string(good), `"schema": 1`, `"schema": 7`, 1)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"newer", newer, []string{"schema 7", "reads schema 1", "upgrade dpscope", "written by dpscope test"}},
		{"truncated", string(good[:len(good)/2]), []string{"not a dpscope session file"}},
		{"foreign JSON", `{"format":"other","schema":1}`, []string{`format "other"`}},
		{"not JSON", "hello", []string{"not a dpscope session file"}},
		{"schema 0", `{"format":"dpscope-session","schema":0}`, []string{"schema 0"}},
		{"bad event", strings.Replace(string(good), `"type": "warning"`, `"type": "gossip"`, 1), []string{`unknown event type "gossip"`, "runs[0].events[9]"}},
		{"bad number", strings.Replace(string(good), `"epsilon": 4,`, `"epsilon": "four",`, 1), []string{"runs[0].config.epsilon", "want a number"}},
		{"ragged embedding", strings.Replace(string(good), `"truth": [`, `"truth": [5,`, 1), []string{"embedding lists of different lengths"}},
		{"ids", strings.Replace(string(good), `"id": 2`, `"id": 0`, 1), []string{"run id 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			keep := string(in)
			_, err := Decode(in)
			if err == nil {
				t.Fatal("decoded; want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.name == "newer" && !errors.Is(err, ErrNewer) {
				t.Errorf("error %v is not ErrNewer", err)
			}
			if string(in) != keep {
				t.Error("Decode changed its input")
			}
		})
	}
}

// FuzzDecode: any bytes decode or fail with an error, never a panic, and
// what decodes encodes and decodes again to the same runs.
func FuzzDecode(f *testing.F) {
	good, _ := Encode(sample())
	f.Add(good)
	f.Add([]byte(`{"format":"dpscope-session","schema":1,"runs":[{"id":1,"events":[{"type":"step","data":{"step":"NaN"}}]}]}`))
	f.Add([]byte(`{"format":"dpscope-session","schema":1,"tally":{"x":{"epsilon_total":"+Inf"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(s)
		if err != nil {
			t.Fatalf("a decoded session does not encode: %v", err)
		}
		s2, err := Decode(again)
		if err != nil {
			t.Fatalf("a re-encoded session does not decode: %v", err)
		}
		if len(s2.Runs) != len(s.Runs) {
			t.Fatalf("%d runs, then %d", len(s.Runs), len(s2.Runs))
		}
		for i := range s.Runs {
			if len(s2.Runs[i].Decoded) != len(s.Runs[i].Decoded) {
				t.Fatalf("run %d: %d events, then %d", i, len(s.Runs[i].Decoded), len(s2.Runs[i].Decoded))
			}
		}
	})
}
