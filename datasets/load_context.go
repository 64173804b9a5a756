package datasets

import (
	"context"
	"io"
)

// ctxEvery is how many lines a text parser reads between two checks of
// its context: 65,536 lines are a few milliseconds of parsing, so a
// cancelled load stops at once while the check costs nothing measurable.
const ctxEvery = 1 << 16

// ctxReader fails every read with ctx's error once ctx is done, so a
// parser reading a file stops at its next block (64 KiB to 256 KiB)
// however it reads.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
