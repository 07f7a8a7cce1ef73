// Package cli holds sluice's subcommands. Commands print results on stdout and
// diagnostics on stderr, and exit 0 on success, 1 when the work failed and 2 on
// usage errors or invalid input (RESOLUTIONS "Conventions").
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailed  = 1
	ExitInvalid = 2
)

// Stdio are the streams a command uses; tests pass buffers.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// ErrIsTerminal forces terminal behaviour (live progress) on stderr; when nil
	// it is detected from Err.
	ErrIsTerminal *bool
}

// exitError carries an exit code through cobra; its message (if any) has been
// printed already or is printed by Main.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// fail returns an error that makes Main exit with code after printing msg.
func fail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// silent returns an error that only sets the exit code (the output says it all).
func silent(code int) error { return &exitError{code: code} }

// Main runs sluice with args and returns the exit code.
func Main(ctx context.Context, args []string, io Stdio) int {
	root := newRoot(io)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(io.Err, "sluice:", ee.msg)
		}
		return ee.code
	}
	// cobra's own errors: unknown command or flag, wrong argument count.
	fmt.Fprintln(io.Err, "sluice:", err)
	return ExitInvalid
}

func newRoot(io Stdio) *cobra.Command {
	root := &cobra.Command{
		Use:           "sluice",
		Short:         "Run AI agents' declarative work safely: validated, permitted, bounded and audited",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       currentBuild().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(
		newVersionCmd(io),
		newInitCmd(io),
		newConfigCmd(io),
		newDocsCmd(io),
		newValidateCmd(io),
		newRunCmd(io),
		newServeCmd(io),
		newAccountsCmd(io),
		newVaultCmd(io),
		newBenchCmd(io),
		newSessionCmd(io),
		newMCPCmd(io),
		newACPCmd(io),
		newE2ACmd(io),
		newCapCmd(io),
		newSearchCmd(io),
		newAPICmd(io),
		newAgentsCmd(io),
		newMockAgentCmd(io),
		newMigrateCmd(io),
		newWorkerCmd(io),
	)
	return root
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
