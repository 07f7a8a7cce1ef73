package cli

import (
	"github.com/spf13/cobra"
)

func newServeCmd(io Stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run the A2E server (not yet: the server lands with its own issue)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fail(ExitFailed, "serve is not built yet; use `sluice run FILE` to execute a workflow locally")
		},
	}
}
