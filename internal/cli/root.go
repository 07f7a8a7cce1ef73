// Package cli holds sluice's subcommands. Commands print results on stdout and
// diagnostics on stderr, and exit 0 on success, 1 when the work failed and 2 on
// usage errors or invalid input (RESOLUTIONS "Conventions").
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes, the same for every command (exitFor maps an error to one).
const (
	ExitOK      = 0
	ExitFailed  = 1 // the work failed, or the server refused it
	ExitInvalid = 2 // usage or invalid input, an HTTP 400 included
	ExitWaiting = 3 // a run waits for a decision (a prompt or an agent_decision)
)

// Stdio are the streams a command uses; tests pass buffers.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// ErrIsTerminal forces terminal behaviour (live progress) on stderr; when nil
	// it is detected from Err.
	ErrIsTerminal *bool
	// OutIsTerminal forces terminal behaviour on stdout (a table rather than
	// JSON by default); when nil it is detected from Out.
	OutIsTerminal *bool
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
	ee := exitFor(err, ExitInvalid)
	if ee.msg != "" {
		fmt.Fprintln(io.Err, "sluice:", ee.msg)
	}
	return ee.code
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
		newExecCmd(io),
		newRunsCmd(io),
		newAuditCmd(io),
		newRetentionCmd(io),
	)
	strictGroups(root)
	root.SetHelpCommand(newHelpCmd(root))
	return root
}

// newHelpCmd is `sluice help [command]`: cobra's own prints the usage and
// exits 0 for a topic it does not know; this one is a usage error (exit 2).
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				return fail(ExitInvalid, "unknown help topic %q (see `sluice help`)", strings.Join(args, " "))
			}
			return target.Help()
		},
	}
}

// strictGroups makes every command that only groups others refuse an
// unknown subcommand (exit 2) rather than print its help and exit 0; bare,
// it still prints its help.
func strictGroups(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		strictGroups(sub)
	}
	if cmd.HasParent() && cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				names := []string{}
				for _, s := range c.Commands() {
					if s.IsAvailableCommand() {
						names = append(names, s.Name())
					}
				}
				return fail(ExitInvalid, "unknown command %q for %q (its commands: %s)", args[0], c.CommandPath(), strings.Join(names, ", "))
			}
			return nil
		}
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
