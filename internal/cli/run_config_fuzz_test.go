package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzReadConfigFile: any file either fails with an error naming it, or
// gives a config whose seed is in 0 … 2⁶³−1 and which, written back as
// --out writes it, reads back the same.
func FuzzReadConfigFile(f *testing.F) {
	for _, s := range []string{
		"", "seed = 3\n", "seed = -1\n", "seed = 9223372036854775807\n", "seed = 18446744073709551615\n",
		"method = \"dcan\"\nepsilon = 4.5\nlayers = \"1-3\"\n[options]\nsplit = \"noniid:2\"\n",
		"epsilon = nan\n", "epochs = [1, 2]\n", "seed = 1.5\n", "\x00", "data = \"\xff\"\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := defaultRunConfig()
		if err := readConfigFile(path, &cfg); err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte(path)) {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if cfg.Seed > maxSeed {
			t.Fatalf("seed %d accepted, want ≤ 2⁶³−1", cfg.Seed)
		}
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(cfg); err != nil {
			return // values TOML cannot write (NaN keys…) are not replayable; run refuses them later
		}
		os.WriteFile(path, buf.Bytes(), 0o644)
		back := defaultRunConfig()
		if err := readConfigFile(path, &back); err != nil {
			t.Fatalf("config written from %q does not read back: %v\n%s", b, err, buf.Bytes())
		}
		if back.Seed != cfg.Seed || back.Method != cfg.Method || back.Layers != cfg.Layers {
			t.Fatalf("round trip changed the config: %+v → %+v", cfg, back)
		}
	})
}
