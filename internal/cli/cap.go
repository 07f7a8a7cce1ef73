package cli

import "github.com/spf13/cobra"

// newCapCmd groups the A2S capability commands: run and test (caprun.go);
// lint, checksum and publish join it in their own files.
func newCapCmd(io Stdio) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cap",
		Short: "Work with A2S capability documents (run, test)",
	}
	cmd.AddCommand(newCapRunCmd(io), newCapTestCmd(io))
	return cmd
}
