package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/BurntSushi/toml"

	"github.com/dpscope/dpscope/core"
)

// runOutput writes the files of `dpscope run --out DIR`. Every file is
// written to a temporary name in DIR and renamed into place only when the
// run has ended, so a folder never holds a half-written file: an interrupted
// or failed write leaves the previous files as they were.
type runOutput struct {
	dir    string
	cfg    core.Config
	events *os.File
	buf    *bufio.Writer
	werr   error
	res    *core.ResultEvent
	temps  []string // temporary files not yet renamed
}

func newRunOutput(dir string, cfg core.Config) (*runOutput, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".events.jsonl.tmp-*")
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	o := &runOutput{dir: dir, cfg: cfg, events: f, buf: bufio.NewWriter(f)}
	o.temps = append(o.temps, f.Name())
	return o, nil
}

// event appends one JSON line to events.jsonl (not yet in place).
func (o *runOutput) event(line []byte) {
	if o.werr != nil {
		return
	}
	if _, err := o.buf.Write(line); err != nil {
		o.werr = err
		return
	}
	o.werr = o.buf.WriteByte('\n')
}

func (o *runOutput) result(r core.ResultEvent) { o.res = &r }

// commit writes the remaining files and renames every one into place.
func (o *runOutput) commit(sum *runSummary) error {
	if err := errors.Join(o.werr, o.buf.Flush(), o.events.Sync(), o.events.Close()); err != nil {
		return fmt.Errorf("--out %s: events: %w", o.dir, err)
	}
	final := map[string]string{o.events.Name(): "events.jsonl"}

	var cfgBuf bytes.Buffer
	if err := toml.NewEncoder(&cfgBuf).Encode(o.cfg); err != nil {
		return fmt.Errorf("--out %s: config: %w", o.dir, err)
	}
	sumJSON, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return fmt.Errorf("--out %s: summary: %w", o.dir, err)
	}
	files := []outFile{{"config.toml", cfgBuf.Bytes()}, {"summary.json", append(sumJSON, '\n')}}
	if r := o.res; r != nil {
		files = append(files, outFile{"embedding.tsv", embeddingTSV(r)}, outFile{"assignments.tsv", assignmentsTSV(r)})
	}
	for _, f := range files {
		tmp, err := o.writeTemp(f.name, f.data)
		if err != nil {
			return err
		}
		final[tmp] = f.name
	}
	for tmp, name := range final {
		if err := os.Rename(tmp, filepath.Join(o.dir, name)); err != nil {
			return fmt.Errorf("--out %s: %w", o.dir, err)
		}
	}
	o.temps = nil
	return nil
}

// outFile is one file of the output folder.
type outFile struct {
	name string
	data []byte
}

func (o *runOutput) writeTemp(name string, data []byte) (string, error) {
	f, err := os.CreateTemp(o.dir, "."+name+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("--out %s: %w", o.dir, err)
	}
	o.temps = append(o.temps, f.Name())
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return "", fmt.Errorf("--out %s: %s: %w", o.dir, name, err)
	}
	return f.Name(), nil
}

// discard removes temporary files left by a run that did not commit.
func (o *runOutput) discard() {
	o.events.Close()
	for _, t := range o.temps {
		os.Remove(t)
	}
}

// embeddingTSV writes "barcode<TAB>z1<TAB>…" with a header.
func embeddingTSV(r *core.ResultEvent) []byte {
	var b bytes.Buffer
	b.WriteString("barcode")
	for k := range r.Dim {
		fmt.Fprintf(&b, "\tz%d", k+1)
	}
	b.WriteByte('\n')
	for i := range r.Cells {
		b.WriteString(barcode(r, i))
		for _, v := range r.Embedding[i*r.Dim : (i+1)*r.Dim] {
			b.WriteByte('\t')
			b.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// assignmentsTSV writes "barcode<TAB>cluster" with a header.
func assignmentsTSV(r *core.ResultEvent) []byte {
	var b bytes.Buffer
	b.WriteString("barcode\tcluster\n")
	for i, c := range r.Cluster {
		fmt.Fprintf(&b, "%s\t%d\n", barcode(r, i), c)
	}
	return b.Bytes()
}

func barcode(r *core.ResultEvent, i int) string {
	if i < len(r.Barcodes) {
		return r.Barcodes[i]
	}
	return "cell_" + strconv.Itoa(i+1)
}
