package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/dpscope/dpscope/core"
)

// The readers of run folders (run --out) and sweep folders (sweep --out)
// for `plot` and `report`. They read files dpscope wrote but users may have
// edited, truncated or replaced: every error names the file and the line,
// and nothing is sized from a number in a file.

// maxLine bounds one line of events.jsonl or a TSV file (an embedding row
// of a few thousand dimensions is far below it).
const maxLine = 16 << 20

// parseSummary parses summary.json (or a sweep's run record: the summary
// with more fields) and refuses a newer schema.
func parseSummary(b []byte, file string) (*runSummary, error) {
	var s runSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not a dpscope run summary: %w", file, err)
	}
	if s.Schema > summarySchema {
		return nil, fmt.Errorf("%s: summary schema %d is newer than this dpscope reads (%d); upgrade dpscope", file, s.Schema, summarySchema)
	}
	if s.Type != "summary" || s.Method == "" {
		return nil, fmt.Errorf("%s: not a dpscope run summary (no \"type\": \"summary\" with a method)", file)
	}
	return &s, nil
}

// trace is what events.jsonl tells of a run's course: the loss and the ε
// spent per accountant against steps, and the target ε.
type trace struct {
	lossSteps, loss []float64
	accountants     []string // in order of appearance
	epsSteps, eps   map[string][]float64
	target          float64
}

// eventLine holds the fields of an event line that trace reads.
type eventLine struct {
	Type   string              `json:"type"`
	Step   *int                `json:"step"`
	Loss   *float64            `json:"loss"`
	Spent  []core.EpsilonValue `json:"spent"`
	Target float64             `json:"target"`
}

// readTrace parses events.jsonl. Steps restart in some methods' later
// stages; the trace then numbers events in order instead, so its x axis
// always grows.
func readTrace(r io.Reader, file string) (*trace, error) {
	t := &trace{epsSteps: map[string][]float64{}, eps: map[string][]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var stepSeq, budgetSeq []int
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var ev eventLine
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON event: %w", file, n, err)
		}
		switch ev.Type {
		case "step":
			if ev.Loss == nil || ev.Step == nil || !finiteAll(*ev.Loss) {
				continue // a step without a finite loss has nothing to draw
			}
			stepSeq = append(stepSeq, *ev.Step)
			t.loss = append(t.loss, *ev.Loss)
		case "budget":
			if ev.Step == nil {
				continue
			}
			budgetSeq = append(budgetSeq, *ev.Step)
			k := len(budgetSeq)
			for _, e := range ev.Spent {
				if !finiteAll(e.Epsilon) {
					continue
				}
				if _, ok := t.eps[e.Accountant]; !ok {
					t.accountants = append(t.accountants, e.Accountant)
				}
				t.epsSteps[e.Accountant] = append(t.epsSteps[e.Accountant], float64(k))
				t.eps[e.Accountant] = append(t.eps[e.Accountant], e.Epsilon)
			}
			if finiteAll(ev.Target) && ev.Target > 0 {
				t.target = ev.Target
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	t.lossSteps = xAxis(stepSeq)
	// Budget series were numbered by event; give them the steps when
	// those grow.
	if steps := xAxis(budgetSeq); len(steps) > 0 {
		for a, xs := range t.epsSteps {
			for i, k := range xs {
				xs[i] = steps[int(k)-1]
			}
			t.epsSteps[a] = xs
		}
	}
	return t, nil
}

// xAxis returns the steps when they strictly grow, else 1, 2, … n.
func xAxis(steps []int) []float64 {
	out := make([]float64, len(steps))
	grows := true
	for i, s := range steps {
		if i > 0 && s <= steps[i-1] {
			grows = false
		}
		out[i] = float64(s)
	}
	if !grows {
		for i := range out {
			out[i] = float64(i + 1)
		}
	}
	return out
}

func finiteAll(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// embeddingFile is embedding.tsv: one row of coordinates per cell.
type embeddingFile struct {
	columns  []string // z1 … zd, or pc1 pc2
	barcodes []string
	data     []float64 // cells × len(columns), row-major
}

// readTSVRows reads a TSV with a header whose first column is "barcode"
// and calls row for every line after it with its fields.
func readTSVRows(r io.Reader, file string, header func([]string) error, row func(n int, fields []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		fields := strings.Split(line, "\t")
		if n == 1 {
			if fields[0] != "barcode" {
				return fmt.Errorf("%s:1: header starts %q, want \"barcode\"", file, fields[0])
			}
			if err := header(fields[1:]); err != nil {
				return fmt.Errorf("%s:1: %w", file, err)
			}
			continue
		}
		if line == "" {
			continue
		}
		if err := row(n, fields); err != nil {
			return fmt.Errorf("%s:%d: %w", file, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: empty file", file)
	}
	return nil
}

// readEmbeddingTSV parses embedding.tsv.
func readEmbeddingTSV(r io.Reader, file string) (*embeddingFile, error) {
	e := &embeddingFile{}
	err := readTSVRows(r, file, func(cols []string) error {
		if len(cols) == 0 {
			return errors.New("no coordinate columns")
		}
		e.columns = cols
		return nil
	}, func(_ int, f []string) error {
		if len(f) != len(e.columns)+1 {
			return fmt.Errorf("%d fields, the header has %d", len(f), len(e.columns)+1)
		}
		e.barcodes = append(e.barcodes, f[0])
		for _, s := range f[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !finiteAll(v) {
				return fmt.Errorf("coordinate %q is not a finite number", s)
			}
			e.data = append(e.data, v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(e.barcodes) == 0 {
		return nil, fmt.Errorf("%s: no cells", file)
	}
	return e, nil
}

// readAssignmentsTSV parses assignments.tsv into each barcode's cluster.
func readAssignmentsTSV(r io.Reader, file string) (barcodes []string, clusters []int, err error) {
	err = readTSVRows(r, file, func(cols []string) error {
		if len(cols) != 1 || cols[0] != "cluster" {
			return fmt.Errorf("header %q, want barcode<TAB>cluster", cols)
		}
		return nil
	}, func(_ int, f []string) error {
		if len(f) != 2 {
			return fmt.Errorf("%d fields, want barcode<TAB>cluster", len(f))
		}
		c, err := strconv.Atoi(f[1])
		if err != nil {
			return fmt.Errorf("cluster %q is not an integer", f[1])
		}
		barcodes, clusters = append(barcodes, f[0]), append(clusters, c)
		return nil
	})
	return barcodes, clusters, err
}

// runFolder is what `plot` and `report` read of a run folder.
type runFolder struct {
	dir      string
	summary  *runSummary
	config   core.Config
	trace    *trace         // nil without events.jsonl
	emb      *embeddingFile // nil without embedding.tsv
	clusters []string       // per cell of emb, "" when unknown; nil without assignments.tsv
}

// isRunFolder reports whether dir holds a run's summary.json.
func isRunFolder(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "summary.json"))
	return err == nil
}

// readRunFolder reads a run folder: summary.json and config.toml are
// required, the others optional.
func readRunFolder(dir string) (*runFolder, error) {
	rf := &runFolder{dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("run folder %s: %w", dir, err)
	}
	if rf.summary, err = parseSummary(b, filepath.Join(dir, "summary.json")); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, "config.toml")
	if _, err := toml.DecodeFile(cfgPath, &rf.config); err != nil {
		return nil, fmt.Errorf("run folder %s: config.toml: %w", dir, err)
	}
	open := func(name string, read func(io.Reader, string) error) error {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		return read(f, filepath.Join(dir, name))
	}
	var asgB []string
	var asgC []int
	err = errors.Join(
		open("events.jsonl", func(r io.Reader, f string) (err error) { rf.trace, err = readTrace(r, f); return }),
		open("embedding.tsv", func(r io.Reader, f string) (err error) { rf.emb, err = readEmbeddingTSV(r, f); return }),
		open("assignments.tsv", func(r io.Reader, f string) (err error) { asgB, asgC, err = readAssignmentsTSV(r, f); return }),
	)
	if err != nil {
		return nil, err
	}
	if rf.emb != nil && asgB != nil {
		rf.clusters = alignClusters(rf.emb.barcodes, asgB, asgC)
	}
	return rf, nil
}

// alignClusters gives each cell of the embedding its cluster, by barcode
// ("" for a cell without one or with a negative cluster).
func alignClusters(cells, barcodes []string, clusters []int) []string {
	by := make(map[string]int, len(barcodes))
	for i, b := range barcodes {
		by[b] = clusters[i]
	}
	out := make([]string, len(cells))
	for i, b := range cells {
		if c, ok := by[b]; ok && c >= 0 {
			out[i] = strconv.Itoa(c)
		}
	}
	return out
}
