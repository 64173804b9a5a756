package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/BurntSushi/toml"

	"github.com/dpscope/dpscope/core"
)

// maxConfigSize bounds a --config file: a run's settings take a few
// hundred bytes, so anything near this is not a config (--config /dev/zero
// would otherwise fill the memory).
const maxConfigSize = 1 << 20

// maxSeed is the largest seed: seeds are 0 … 2⁶³−1 everywhere, because TOML
// integers are signed 64-bit and a config written by --out must load again.
const maxSeed = math.MaxInt64

// readConfigFile decodes the TOML file at path into cfg, refusing files
// larger than maxConfigSize, unknown keys and seeds outside 0 … 2⁶³−1.
// Errors name the file.
func readConfigFile(path string, cfg *core.Config) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("config %s: is a folder, want a TOML file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return fmt.Errorf("config %s: %w", path, unwrapPath(err))
	}
	if len(b) > maxConfigSize {
		return fmt.Errorf("config %s: larger than %d bytes, not a dpscope run configuration", path, maxConfigSize)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Errorf("config %s: byte %d is NUL, want a TOML text file", path, i+1)
	}
	// The seed is read first as a signed TOML integer: decoded straight into
	// the unsigned field, -1 would wrap to 2⁶⁴−1.
	var seed struct {
		Seed any `toml:"seed"`
	}
	if _, err := toml.Decode(string(b), &seed); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if seed.Seed != nil {
		v, ok := seed.Seed.(int64)
		if !ok || v < 0 {
			return fmt.Errorf("config %s: seed is %v, must be an integer in 0 … %d (2⁶³−1)", path, seed.Seed, int64(maxSeed))
		}
	}
	md, err := toml.Decode(string(b), cfg)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		return fmt.Errorf("config %s: unknown key %q", path, undec[0].String())
	}
	return nil
}

// unwrapPath drops the path from an *os.PathError, which the caller's
// message already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
