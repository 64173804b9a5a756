package datasets

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"
)

// The cache's file format: a magic, the schema, the key, then every field
// of a Prepared in a fixed order — numbers little-endian, slices and
// strings length-prefixed, optional parts behind a presence byte. Numeric
// slices are written in bulk, so a cached pbmc_4k (70 MB of float32) reads
// back at disk speed, where gob would decode it value by value.

// littleEndian hosts (amd64, arm64) write and read 4-byte slices as they
// sit in memory, at copy speed; others convert value by value.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// cacheMagic opens every cache file.
const cacheMagic = "DPSCPREP"

// errCacheFormat is wrapped by every error of a cache file that does not
// decode: the caller recomputes and overwrites it.
var errCacheFormat = errors.New("datasets: cache file is not a valid entry")

type cacheWriter struct {
	w   *bufio.Writer
	buf [8]byte
	err error
}

func (c *cacheWriter) bytes(b []byte) {
	if c.err == nil {
		_, c.err = c.w.Write(b)
	}
}

func (c *cacheWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(c.buf[:], v)
	c.bytes(c.buf[:])
}

func (c *cacheWriter) int(v int) { c.u64(uint64(int64(v))) }

func (c *cacheWriter) bool(v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	c.bytes([]byte{b})
}

func (c *cacheWriter) str(s string) {
	c.int(len(s))
	if c.err == nil {
		_, c.err = c.w.WriteString(s)
	}
}

func (c *cacheWriter) strs(ss []string) {
	c.int(len(ss))
	for _, s := range ss {
		c.str(s)
	}
}

// ints writes a nil-able []int: nil and empty stay distinct, because a nil
// Labels means "no labels" and an empty one cannot occur but must not turn
// into one.
func (c *cacheWriter) ints(v []int) {
	c.bool(v != nil)
	c.int(len(v))
	for _, x := range v {
		c.int(x)
	}
}

func (c *cacheWriter) int64s(v []int64) {
	c.int(len(v))
	for _, x := range v {
		c.u64(uint64(x))
	}
}

// words writes a slice of 4-byte values: as they sit in memory on a
// little-endian host, else value by value in bounded chunks.
func words[T int32 | float32](c *cacheWriter, v []T, bits func(T) uint32) {
	if littleEndian && len(v) > 0 {
		c.bytes(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
		return
	}
	b := make([]byte, 0, 1<<16)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, bits(x))
		if len(b) == cap(b) {
			c.bytes(b)
			b = b[:0]
		}
	}
	c.bytes(b)
}

func (c *cacheWriter) int32s(v []int32) {
	c.int(len(v))
	words(c, v, func(x int32) uint32 { return uint32(x) })
}

func (c *cacheWriter) float32s(v []float32) {
	c.bool(v != nil)
	c.int(len(v))
	words(c, v, math.Float32bits)
}

func (c *cacheWriter) float64s(v []float64) {
	c.int(len(v))
	for _, x := range v {
		c.u64(math.Float64bits(x))
	}
}

// writeCacheEntry writes p under key to w.
func writeCacheEntry(w io.Writer, key string, p *Prepared) error {
	c := &cacheWriter{w: bufio.NewWriterSize(w, 1<<16)}
	c.bytes([]byte(cacheMagic))
	c.int(cacheSchema)
	c.str(key)

	d := p.Raw
	c.str(d.Name)
	c.str(d.Source)
	c.int(d.X.Rows)
	c.int(d.X.Cols)
	c.int64s(d.X.Indptr)
	c.int32s(d.X.Indices)
	c.float32s(d.X.Data)
	c.strs(d.GeneIDs)
	c.strs(d.GeneNames)
	c.strs(d.Barcodes)
	c.ints(d.Labels)
	c.strs(d.Classes)
	c.int(int(d.ValueType))
	c.strs(d.Warnings)

	c.bool(p.Labels != nil)
	if r := p.Labels; r != nil {
		c.str(r.File)
		c.int(r.Labelled)
		c.int(r.Missing)
		c.strs(r.MissingExamples)
		c.int(r.Unknown)
		c.strs(r.UnknownExamples)
		c.bool(r.Header)
	}

	c.bool(p.Data != nil)
	if x := p.Data; x != nil {
		c.int(x.Cells)
		c.int(x.Genes)
		c.float32s(x.X)
		c.float32s(x.RawCounts)
		c.float64s(x.SizeFactors)
		c.strs(x.GeneIDs)
		c.strs(x.GeneNames)
		c.strs(x.Barcodes)
		c.ints(x.CellIndex)
		c.ints(x.Labels)
		c.strs(x.Classes)
		c.int(int(x.ValueType))
		c.int(len(x.Steps))
		for _, s := range x.Steps {
			c.str(s.Name)
			c.str(s.Detail)
			c.bool(s.Skipped)
		}
	}
	if c.err == nil {
		c.err = c.w.Flush()
	}
	return c.err
}

// cacheReader decodes what cacheWriter wrote. left is the number of bytes
// still in the file: every length is checked against it before anything is
// allocated, so a corrupt file costs an error, never a huge allocation.
type cacheReader struct {
	r    *bufio.Reader
	left int64
	buf  [8]byte
	err  error
}

func (c *cacheReader) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{errCacheFormat}, args...)...)
	}
}

func (c *cacheReader) read(b []byte) bool {
	if c.err != nil {
		return false
	}
	if int64(len(b)) > c.left {
		c.fail("truncated")
		return false
	}
	if _, err := io.ReadFull(c.r, b); err != nil {
		c.fail("%v", err)
		return false
	}
	c.left -= int64(len(b))
	return true
}

func (c *cacheReader) u64() uint64 {
	if !c.read(c.buf[:]) {
		return 0
	}
	return binary.LittleEndian.Uint64(c.buf[:])
}

// int reads a count or an index: it must fit an int and be ≥ 0 unless
// signed is set.
func (c *cacheReader) int() int {
	v := int64(c.u64())
	if v < 0 || v > math.MaxInt32*int64(1<<16) {
		c.fail("a count of %d", v)
		return 0
	}
	return int(v)
}

func (c *cacheReader) signed() int { return int(int64(c.u64())) }

// count reads a slice length whose elements take at least size bytes each.
func (c *cacheReader) count(size int64) int {
	n := c.int()
	if c.err == nil && int64(n) > c.left/size {
		c.fail("a length of %d with %d bytes left", n, c.left)
		return 0
	}
	return n
}

func (c *cacheReader) bool() bool {
	var b [1]byte
	if !c.read(b[:]) {
		return false
	}
	if b[0] > 1 {
		c.fail("a flag of %d", b[0])
	}
	return b[0] == 1
}

func (c *cacheReader) str() string {
	n := c.count(1)
	if c.err != nil {
		return ""
	}
	b := make([]byte, n)
	c.read(b)
	return string(b)
}

func (c *cacheReader) strs() []string {
	n := c.count(8)
	if c.err != nil || n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = c.str()
	}
	return out
}

func (c *cacheReader) ints() []int {
	present := c.bool()
	n := c.count(8)
	if c.err != nil || !present {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = c.signed()
	}
	return out
}

func (c *cacheReader) int64s() []int64 {
	n := c.count(8)
	if c.err != nil {
		return nil
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(c.u64())
	}
	return out
}

// chunks reads n elements of 4 bytes through a bounded buffer, calling put
// for each.
func (c *cacheReader) chunks(n int, put func(i int, v uint32)) {
	b := make([]byte, min(n*4, 1<<16))
	for i := 0; i < n && c.err == nil; {
		m := min(len(b)/4, n-i)
		if !c.read(b[:m*4]) {
			return
		}
		for j := 0; j < m; j++ {
			put(i+j, binary.LittleEndian.Uint32(b[4*j:]))
		}
		i += m
	}
}

// readWords reads n 4-byte values, the counterpart of words.
func readWords[T int32 | float32](c *cacheReader, n int, from func(uint32) T) []T {
	out := make([]T, n)
	if littleEndian && n > 0 {
		c.read(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*n))
		return out
	}
	c.chunks(n, func(i int, v uint32) { out[i] = from(v) })
	return out
}

func (c *cacheReader) int32s() []int32 {
	n := c.count(4)
	if c.err != nil {
		return nil
	}
	return readWords(c, n, func(v uint32) int32 { return int32(v) })
}

func (c *cacheReader) float32s() []float32 {
	present := c.bool()
	n := c.count(4)
	if c.err != nil || !present {
		return nil
	}
	return readWords(c, n, math.Float32frombits)
}

func (c *cacheReader) float64s() []float64 {
	n := c.count(8)
	if c.err != nil {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(c.u64())
	}
	return out
}

// readCacheEntry decodes an entry of size bytes from r and checks that it
// was written under key and that its parts agree with each other (the
// checks Load and Preprocess guarantee of a fresh result).
func readCacheEntry(r io.Reader, size int64, key string) (*Prepared, error) {
	c := &cacheReader{r: bufio.NewReaderSize(r, 1<<16), left: size}
	magic := make([]byte, len(cacheMagic))
	if c.read(magic); c.err == nil && string(magic) != cacheMagic {
		c.fail("no magic")
	}
	if s := c.int(); c.err == nil && s != cacheSchema {
		c.fail("schema %d, this dpscope reads %d", s, cacheSchema)
	}
	if k := c.str(); c.err == nil && k != key {
		c.fail("written for another key")
	}

	d := &Dataset{Name: c.str(), Source: c.str(), X: &CSR{}}
	d.X.Rows, d.X.Cols = c.int(), c.int()
	d.X.Indptr = c.int64s()
	d.X.Indices = c.int32s()
	d.X.Data = c.float32s()
	d.GeneIDs, d.GeneNames, d.Barcodes = c.strs(), c.strs(), c.strs()
	d.Labels = c.ints()
	d.Classes = c.strs()
	d.ValueType = ValueType(c.int())
	d.Warnings = c.strs()
	p := &Prepared{Raw: d}

	if c.bool() {
		p.Labels = &LabelReport{File: c.str(), Labelled: c.int(), Missing: c.int(), MissingExamples: c.strs(),
			Unknown: c.int(), UnknownExamples: c.strs(), Header: c.bool()}
	}
	if c.bool() {
		x := &Preprocessed{Cells: c.int(), Genes: c.int()}
		x.X, x.RawCounts = c.float32s(), c.float32s()
		x.SizeFactors = c.float64s()
		x.GeneIDs, x.GeneNames, x.Barcodes = c.strs(), c.strs(), c.strs()
		x.CellIndex, x.Labels = c.ints(), c.ints()
		x.Classes = c.strs()
		x.ValueType = ValueType(c.int())
		x.Steps = make([]Step, c.count(17))
		for i := range x.Steps {
			x.Steps[i] = Step{Name: c.str(), Detail: c.str(), Skipped: c.bool()}
		}
		p.Data = x
	}
	if c.err == nil && c.left != 0 {
		c.fail("%d bytes after the entry", c.left)
	}
	if c.err != nil {
		return nil, c.err
	}
	if err := checkCached(p); err != nil {
		return nil, fmt.Errorf("%w: %v", errCacheFormat, err)
	}
	return p, nil
}

// checkCached checks that a decoded entry is one Load and Preprocess could
// have returned, so that no later step can index out of range on it.
func checkCached(p *Prepared) error {
	d := p.Raw
	if d.ValueType != Counts && d.ValueType != NonCounts {
		return fmt.Errorf("value type %d", d.ValueType)
	}
	// Shapes first: Validate sizes its work by Rows and Cols, which must
	// not come from a corrupt file unchecked.
	if d.X.Rows+1 != len(d.X.Indptr) || d.X.Cols != len(d.GeneIDs) || d.X.Rows != len(d.Barcodes) {
		return fmt.Errorf("matrix %d×%d with %d row pointers, %d genes, %d barcodes", d.X.Rows, d.X.Cols, len(d.X.Indptr), len(d.GeneIDs), len(d.Barcodes))
	}
	if err := d.Validate(); err != nil {
		return err
	}
	x := p.Data
	if x == nil {
		return nil
	}
	n, g := x.Cells, x.Genes
	switch {
	case n <= 0 || g <= 0 || int64(n)*int64(g) != int64(len(x.X)):
		return fmt.Errorf("preprocessed shape %d×%d with %d values", n, g, len(x.X))
	case x.RawCounts != nil && len(x.RawCounts) != len(x.X):
		return fmt.Errorf("%d raw counts for %d values", len(x.RawCounts), len(x.X))
	case len(x.SizeFactors) != n || len(x.Barcodes) != n || len(x.CellIndex) != n:
		return fmt.Errorf("per-cell parts of lengths %d, %d, %d for %d cells", len(x.SizeFactors), len(x.Barcodes), len(x.CellIndex), n)
	case len(x.GeneIDs) != g || len(x.GeneNames) != g:
		return fmt.Errorf("per-gene parts of lengths %d, %d for %d genes", len(x.GeneIDs), len(x.GeneNames), g)
	case x.Labels != nil && len(x.Labels) != n:
		return fmt.Errorf("%d labels for %d cells", len(x.Labels), n)
	case x.ValueType != Counts && x.ValueType != NonCounts:
		return fmt.Errorf("value type %d", x.ValueType)
	}
	for _, i := range x.CellIndex {
		if i < 0 || i >= d.Cells() {
			return fmt.Errorf("cell index %d of %d cells", i, d.Cells())
		}
	}
	for _, l := range x.Labels {
		if l < -1 || l >= len(x.Classes) {
			return fmt.Errorf("label %d of %d classes", l, len(x.Classes))
		}
	}
	return nil
}
