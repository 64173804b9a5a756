package cli

import "github.com/spf13/cobra"

func newReportCmd(env Env) *cobra.Command { return &cobra.Command{Use: "report DIR", Hidden: true} }
