package cli

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// CLIDocPath is the command reference, generated from the command tree by
// `go run ./cmd/sluice docs` (TestCLIDocIsCurrent fails when it is stale).
const CLIDocPath = "docs/cli.md"

// newDocsCmd is the hidden command that writes docs/cli.md.
func newDocsCmd(io Stdio) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:    "docs",
		Short:  "Write the command reference (" + CLIDocPath + ") from the command tree",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			text, err := CLIReference()
			if err != nil {
				return fail(ExitFailed, "%v", err)
			}
			if out == "-" {
				_, err = io.Out.Write(text)
				return err
			}
			if err := os.WriteFile(out, text, 0o644); err != nil {
				return fail(ExitFailed, "cannot write %s: %v", out, err)
			}
			fmt.Fprintf(io.Err, "wrote %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", CLIDocPath, "the file to write (- for stdout); run from the repository root")
	return cmd
}

// CLIReference is docs/cli.md: every visible command's page from cobra's
// Markdown generator, in one file, links made anchors within it. The
// version line and the "auto generated" date are left out so the file
// changes only with the commands.
func CLIReference() ([]byte, error) {
	root := newRoot(Stdio{})
	root.DisableAutoGenTag = true
	var b bytes.Buffer
	b.WriteString("# sluice command reference\n\n")
	b.WriteString("<!-- Generated from the command tree by `go run ./cmd/sluice docs`; do not edit. -->\n\n")
	b.WriteString("Exit codes: 0 success, 1 the work failed or the server refused, 2 usage or invalid input (an HTTP 400 included), 3 a run waits for a decision.\n")
	b.WriteString("Configuration keys and environment variables: [configuration.md](configuration.md).\n\n")
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root || c.IsAdditionalHelpTopicCommand() {
			return nil
		}
		c.DisableAutoGenTag = true
		var page bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &page, anchor); err != nil {
			return fmt.Errorf("%s: %w", c.CommandPath(), err)
		}
		b.Write(page.Bytes())
		b.WriteString("\n")
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// anchor turns cobra's link to another page (sluice_accounts_create.md)
// into the anchor of its heading in this file (#sluice-accounts-create).
func anchor(name string) string {
	return "#" + strings.ReplaceAll(strings.TrimSuffix(name, ".md"), "_", "-")
}
