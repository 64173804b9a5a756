package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/datasets"
)

// Version is dpscope's version, set at link time with
// -ldflags "-X github.com/dpscope/dpscope/internal/cli.Version=v1.2.3";
// when unset it comes from the build information (module version or VCS
// revision).
var Version = ""

// BuildVersion is dpscope's version: Version, or what the build
// information says. Saved sessions and exports are stamped with it.
func BuildVersion() string { return version() }

// version returns Version or what the build information says.
func version() string {
	if Version != "" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}

// versionInfo is what `dpscope version --json` prints.
type versionInfo struct {
	Version     string `json:"version"`
	GoVersion   string `json:"go_version"`
	Platform    string `json:"platform"`
	BLAS        string `json:"blas"`
	BLASThreads int    `json:"blas_threads"`
	BLASLibrary string `json:"blas_library,omitempty"`
	BLASConfig  string `json:"blas_config"`
	BLASReason  string `json:"blas_reason,omitempty"`
	// HDF5 is the libhdf5 that reads .h5ad and Cell Ranger .h5 files, or
	// why there is none and how to install it.
	HDF5 string `json:"hdf5"`
}

func newVersionCmd(env Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, the Go version and the BLAS backend in use",
		Long: `version prints dpscope's version, the Go toolchain it was built with, and the
BLAS backend that matrix products use: OpenBLAS when libopenblas.so.0 is
installed (apt-get install libopenblas0), otherwise gonum's pure-Go kernels.
DPSCOPE_BLAS=auto|go|openblas chooses; openblas fails when it is missing.
It also names the libhdf5 that reads .h5ad and Cell Ranger .h5 files, or
says how to install it (apt-get install libhdf5-103-1).`,
		Args: cobra.NoArgs,
		RunE: runE(func(_ *cobra.Command, _ []string) error {
			b, err := compute.Init()
			if err != nil {
				return err
			}
			v := versionInfo{
				Version: version(), GoVersion: runtime.Version(),
				Platform: runtime.GOOS + "/" + runtime.GOARCH,
				BLAS:     b.Name, BLASThreads: b.Threads, BLASLibrary: b.Library,
				BLASConfig: b.Config, BLASReason: b.Reason,
				HDF5: hdf5Line(),
			}
			if asJSON {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			fmt.Fprintf(env.Stdout, "dpscope %s\n%s %s\nBLAS: %s\n", v.Version, v.GoVersion, v.Platform, b)
			if b.Reason != "" {
				fmt.Fprintf(env.Stdout, "      %s\n", b.Reason)
			}
			fmt.Fprintf(env.Stdout, "HDF5: %s\n", v.HDF5)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// hdf5Line describes the libhdf5 in use, or says how to get one.
func hdf5Line() string {
	path, v, err := datasets.HDF5Library()
	if err != nil {
		return "none: .h5ad and Cell Ranger .h5 files cannot be read (" + err.Error() + ")"
	}
	return "libhdf5 " + v + " (" + path + ")"
}
