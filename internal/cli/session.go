package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/tui/session"
)

// sessionData returns the data settings of the session file path (the
// root's --session), or ok false when the file does not exist yet (a new
// session that will save there). A file that cannot be read or is not a
// session is an error that names it: the interface does not start, and
// the file is left as it was.
func sessionData(path string) (cfg core.Config, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, false, nil
	}
	if err != nil {
		return cfg, false, fmt.Errorf("--session %s: %w", path, err)
	}
	f, err := session.Decode(b)
	if err != nil {
		return cfg, false, fmt.Errorf("--session %s: %w (the file is left as it was)", path, err)
	}
	d := f.Data
	return core.Config{Data: d.Spec, Labels: d.Labels, LabelsColumn: d.LabelsColumn, UseRaw: d.UseRaw, Orientation: d.Orientation, Preprocess: d.Preprocess}, true, nil
}

// loadSession loads the data set of the session file path: the one the
// session's runs read, with the settings that shaped it, unless --data
// names another (then the flags alone, as without a session). Flags given
// for the labels or the preprocessing apply over the session's.
func (lf *loadFlags) loadSession(cmd *cobra.Command, path string) (*Loaded, error) {
	base, ok, err := sessionData(path)
	if err != nil {
		return nil, err
	}
	if !ok || cmd.Flags().Changed("data") || base.Data == "" {
		l, err := lf.load(cmd)
		if l != nil {
			l.Session = path
		}
		return l, err
	}
	l, err := lf.loadFrom(cmd, base)
	if err != nil {
		return nil, fmt.Errorf("--session %s: its data set %s: %w (--data opens the session on another)", path, base.Data, err)
	}
	l.Session = path
	return l, nil
}
