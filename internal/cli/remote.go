package cli

import (
	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/internal/serve"
)

// newRemoteRootCmd is the command line of a remote SSH command: only run
// and budget, with run's path flags confined (remoteRunCmd).
func newRemoteRootCmd(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "dpscope",
		Short:         "dpscope over SSH: run and budget",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{flagValueError(err)} })
	root.AddCommand(newBudgetCmd(env), remoteRunCmd(env))
	return root
}

// remoteRunCmd is `dpscope run` for a remote session: --config and the
// data and labels (from the flags or the config file) must lie inside the
// data folder, --out inside the session's folder, links resolved; the run
// waits for a worker of the server's queue and frees it when it ends.
func remoteRunCmd(env Env) *cobra.Command {
	rf := &runFlags{cfg: defaultRunConfig()}
	cmd := rf.command(env)
	req := env.remote
	cmd.RunE = runE(func(cmd *cobra.Command, _ []string) error {
		if rf.configFile != "" {
			real, err := serve.Confine(req.DataRoot, rf.configFile)
			if err != nil {
				return usagef("--config: %v", err)
			}
			rf.configFile = real
		}
		cfg, err := rf.config(cmd)
		if err != nil {
			return err
		}
		if rf.outDir != "" {
			real, err := serve.Confine(req.StateDir, rf.outDir)
			if err != nil {
				return usagef("--out: %v (runs write only into the session's folder)", err)
			}
			rf.outDir = real
		}
		release, err := req.Admit(cmd.Context(), &cfg)
		if err != nil {
			return usageError{err}
		}
		defer release()
		return executeRun(cmd.Context(), cfg, runRequest{asJSON: rf.asJSON, outDir: rf.outDir, force: rf.force, references: !rf.noRef}, env)
	})
	return cmd
}
