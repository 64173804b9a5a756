package cli

import (
	"bytes"
	"math"
	"testing"
)

func FuzzReadTrace(f *testing.F) {
	f.Add([]byte(`{"type":"step","stage":1,"epoch":1,"step":1,"loss":2.5}
{"type":"budget","step":1,"delta":1e-5,"spent":[{"accountant":"RDP","epsilon":0.5}],"target":2}
{"type":"step","step":1,"loss":2}
`))
	f.Add([]byte("{\"type\":\"budget\",\"step\":3}\n\n{\"type\":\"step\"}\nnot json"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := readTrace(bytes.NewReader(b), "events.jsonl")
		if err != nil {
			return
		}
		if len(tr.loss) != len(tr.lossSteps) {
			t.Fatalf("%d losses at %d steps", len(tr.loss), len(tr.lossSteps))
		}
		for _, a := range tr.accountants {
			if len(tr.eps[a]) != len(tr.epsSteps[a]) {
				t.Fatalf("%s: %d ε at %d steps", a, len(tr.eps[a]), len(tr.epsSteps[a]))
			}
			for i := 1; i < len(tr.epsSteps[a]); i++ {
				if tr.epsSteps[a][i] <= tr.epsSteps[a][i-1] {
					t.Fatalf("%s: steps %v do not grow", a, tr.epsSteps[a])
				}
			}
		}
	})
}

func FuzzReadEmbeddingTSV(f *testing.F) {
	f.Add([]byte("barcode\tz1\tz2\na\t1\t2\nb\t3\t4\n"))
	f.Add([]byte("barcode\tpc1\tpc2\ncell_1\tNaN\t1\n"))
	f.Add([]byte("barcode\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := readEmbeddingTSV(bytes.NewReader(b), "embedding.tsv")
		if err != nil {
			return
		}
		if len(e.data) != len(e.barcodes)*len(e.columns) || len(e.barcodes) == 0 {
			t.Fatalf("%d values for %d cells × %d columns", len(e.data), len(e.barcodes), len(e.columns))
		}
		for _, v := range e.data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite coordinate %v accepted", v)
			}
		}
	})
}

func FuzzReadAssignmentsTSV(f *testing.F) {
	f.Add([]byte("barcode\tcluster\na\t0\nb\t-1\n"))
	f.Add([]byte("barcode\tcluster\na\tx\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		bc, cl, err := readAssignmentsTSV(bytes.NewReader(b), "assignments.tsv")
		if err == nil && len(bc) != len(cl) {
			t.Fatalf("%d barcodes, %d clusters", len(bc), len(cl))
		}
		if err == nil {
			alignClusters(bc, bc, cl)
		}
	})
}

func FuzzParseSummary(f *testing.F) {
	f.Add([]byte(`{"type":"summary","schema":2,"method":"dppca","mode":"sound","ari":0.5,"guarantee_reasons":["a"]}`))
	f.Add([]byte(`{"type":"summary","schema":3,"method":"x"}`))
	f.Add([]byte(`{"schema":1,"seed":3,"type":"summary","method":"m","epsilon_target":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseSummary(b, "summary.json")
		if err == nil && (s.Schema > summarySchema || s.Method == "") {
			t.Fatalf("accepted schema %d method %q", s.Schema, s.Method)
		}
	})
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"schema":1,"version":"devel","grid_hash":"ab","grid":{"base":{"data":"builtin:default"},"methods":["m"],"modes":["sound"],"epsilons":[1],"seeds":[0]}}`))
	f.Add([]byte(`{"schema":2,"grid":{"methods":["m"]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest(b, "manifest.json")
		if err != nil {
			return
		}
		if m.Schema > sweepSchema || len(m.Grid.Methods) == 0 {
			t.Fatalf("accepted schema %d with methods %q", m.Schema, m.Grid.Methods)
		}
		m.Grid.Points() // must not panic on any grid
	})
}
