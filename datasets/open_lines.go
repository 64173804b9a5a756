package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
)

const (
	// readBufSize is the buffer of every line reader: big enough that nearly
	// every line is returned without copying.
	readBufSize = 1 << 20
	// maxLineLen bounds a line of a dense matrix file (its header or a data
	// row): 64 MiB holds a row of 4 million values written with 16 digits,
	// far beyond any expression matrix stored as text, and keeps a file
	// with no newline (a 3 GB row) from filling the memory.
	maxLineLen = 1 << 26
	// maxTextLine bounds a line of the line-oriented files (MatrixMarket,
	// features, barcodes, labels), whose lines are a few fields long.
	maxTextLine = 1 << 20
)

// utf8BOM is the byte order mark some editors (Excel, Notepad) put before
// UTF-8 text; it is not part of the first name.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// decompress returns a reader of the content of r, gunzipped when r starts
// with the gzip magic bytes, whatever its name. The caller closes the returned
// closer (which never closes r). file names r in errors.
func decompress(r io.Reader, file string) (io.Reader, io.Closer, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, nil, &ParseError{File: file, Msg: "read: " + err.Error(), Err: err}
	}
	if !bytes.Equal(head, gzipMagic) {
		return skipBOM(br), io.NopCloser(nil), nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, nil, &ParseError{File: file, Msg: "bad gzip header: " + err.Error(), Err: err}
	}
	// Every pipeline stage reads in big blocks; gunzip runs in its own
	// goroutine so that it overlaps with parsing.
	pr := newPipeReader(zr)
	return &bomReader{r: pr}, pr, nil
}

// skipBOM drops a UTF-8 byte order mark at the start of br.
func skipBOM(br *bufio.Reader) *bufio.Reader {
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	return br
}

// bomReader drops a UTF-8 byte order mark at the start of r, which may come
// in pieces.
type bomReader struct {
	r    io.Reader
	done bool
	head []byte // bytes read while looking for the mark, not yet returned
}

func (b *bomReader) Read(p []byte) (int, error) {
	for !b.done {
		var one [3]byte
		n, err := b.r.Read(one[:len(utf8BOM)-len(b.head)])
		b.head = append(b.head, one[:n]...)
		if len(b.head) == len(utf8BOM) || err != nil || !bytes.HasPrefix(utf8BOM, b.head) {
			b.done = true
			if bytes.Equal(b.head, utf8BOM) {
				b.head = nil
			}
			if err != nil && len(b.head) == 0 {
				return 0, err
			}
		}
	}
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	return b.r.Read(p)
}

// openFile opens path for reading, gunzipping transparently. The returned
// closer closes everything.
func openFile(path string) (io.Reader, io.Closer, error) {
	return openFileContext(context.Background(), path)
}

// openFileContext is openFile whose reads fail with ctx's error once ctx
// is done: every parser reading through it stops at its next block.
func openFileContext(ctx context.Context, path string) (io.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error() // the path is already in the message
		}
		return nil, nil, &ParseError{File: path, Msg: "open: " + msg, Err: err}
	}
	var src io.Reader = f
	if ctx.Done() != nil {
		src = ctxReader{ctx, f}
	}
	r, c, err := decompress(src, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, multiCloser{c, f}, nil
}

// multiCloser closes each of its closers in order, returning the first error.
type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// lineReader returns the lines of a text stream one at a time, with their
// 1-based numbers, without copying unless a line is longer than the buffer.
// Not safe for concurrent use.
type lineReader struct {
	br   *bufio.Reader
	file string
	max  int    // longest line accepted
	line int    // number of the line last returned
	long []byte // assembly buffer for lines longer than the bufio buffer
}

func newLineReader(r io.Reader, file string) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, readBufSize), file: file, max: maxTextLine}
}

// next returns the next line without its "\n" or "\r\n", valid until the
// following call. It returns io.EOF (unwrapped) at the end of input, and a
// *ParseError for read errors, including truncated gzip streams.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(lr.long) > lr.max {
				return nil, parseErrorf(lr.file, lr.line+1, "line longer than %d bytes: not a text file of this kind", lr.max)
			}
			b, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, b...)
		}
		b = lr.long
	}
	if err != nil && err != io.EOF {
		return nil, lr.readError(err)
	}
	if err == io.EOF && len(b) == 0 {
		return nil, io.EOF
	}
	lr.line++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// readError turns a read error into a *ParseError at the line being read.
func (lr *lineReader) readError(err error) error {
	msg := "read: " + err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "truncated file: " + err.Error()
	}
	return &ParseError{File: lr.file, Line: lr.line + 1, Msg: msg, Err: err}
}

// pipeReader reads its source in a separate goroutine, in large blocks, so
// that producing the bytes (gunzip) overlaps with consuming them (parsing).
// Close stops the goroutine; it must be called.
type pipeReader struct {
	full  chan pipeBlock // blocks ready to be read
	empty chan []byte    // blocks handed back for reuse
	done  chan struct{}  // closed by Close
	quit  chan struct{}  // closed when fill returns
	cur   []byte         // unread part of the current block
	buf   []byte         // current block, to hand back
	err   error          // sticky error once the source ends
}

type pipeBlock struct {
	b   []byte
	err error
}

const (
	pipeBlockSize = 256 << 10
	pipeBlocks    = 4
)

func newPipeReader(src io.Reader) *pipeReader {
	p := &pipeReader{
		full:  make(chan pipeBlock, pipeBlocks),
		empty: make(chan []byte, pipeBlocks),
		done:  make(chan struct{}),
		quit:  make(chan struct{}),
	}
	for range pipeBlocks {
		p.empty <- make([]byte, pipeBlockSize)
	}
	go p.fill(src)
	return p
}

// fill runs in its own goroutine until src ends or Close is called.
func (p *pipeReader) fill(src io.Reader) {
	defer close(p.quit)
	for {
		var b []byte
		select {
		case b = <-p.empty:
		case <-p.done:
			return
		}
		n, err := readBlock(src, b)
		select {
		case p.full <- pipeBlock{b: b[:n], err: err}:
		case <-p.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements io.Reader.
func (p *pipeReader) Read(dst []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.buf != nil {
			p.empty <- p.buf[:cap(p.buf)]
			p.buf = nil
		}
		blk := <-p.full
		p.cur, p.err = blk.b, blk.err
		if len(blk.b) > 0 {
			p.buf = blk.b
		}
	}
	n := copy(dst, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// Close stops the reading goroutine. It does not close the source.
func (p *pipeReader) Close() error {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	<-p.quit
	return nil
}

// readBlock fills b from src. It returns a nil error with a short block when
// src ends after some bytes, so that the next call reports io.EOF; any other
// error (io.ErrUnexpectedEOF from a truncated gzip stream included) is
// returned with the bytes read before it.
func readBlock(src io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := src.Read(b[n:])
		n += m
		if err == io.EOF && n > 0 {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
