package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/protocol/a2s"
)

// The cap commands work on A2S capability documents (docs/protocols/a2s.md).
// lint, checksum and schema live here; run and test in caprun.go; publish
// joins in its own file.

// capCommands builds the subcommands of `sluice cap`, in the order shown.
var capCommands = []func(Stdio) *cobra.Command{
	newCapLintCmd, newCapChecksumCmd, newCapSchemaCmd, newCapRunCmd, newCapTestCmd, newCapDecideCmd, newCapPublishCmd,
	newCapListCmd, newCapGetCmd,
}

// newCapCmd groups the A2S capability commands.
func newCapCmd(io Stdio) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cap",
		Short: "Work with A2S capability documents (lint, checksum, schema, run, test, decide, publish)",
		Long: `Commands for A2S capability documents (docs/protocols/a2s.md): lint them,
compute and verify their checksum, print their JSON Schema, run them and run
their examples as tests.`,
	}
	for _, sub := range capCommands {
		cmd.AddCommand(sub(io))
	}
	return cmd
}

func newCapLintCmd(io Stdio) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Lint capability documents; print file:line:col: severity: ID message",
		Long: `Lint capability documents, together: besides each document's own problems,
imports are followed between the files given (aggregates importing non-atomic
capabilities, import cycles, two documents with one id and version).

Each problem is printed as file:line:col: severity: ID message (the rules are
listed in docs/protocols/a2s.md); --json prints {"diagnostics", "errors",
"warnings"} instead. "-" reads standard input.
Exit 0 when no error was found (warnings alone exit 0), 2 otherwise.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var docs []*a2s.Document
			var diags []a2s.Diagnostic
			stdinUsed := false
			for _, name := range args {
				if name == "-" {
					if stdinUsed {
						return fail(ExitInvalid, "standard input (-) can be given once")
					}
					stdinUsed = true
				}
				data, diag, err := readCapability(name, io.In)
				if err != nil {
					return err
				}
				if diag != nil {
					diags = append(diags, *diag)
					continue
				}
				d, perr := a2s.Parse(data, a2s.Options{File: name, Format: a2s.FormatOf(name)})
				if perr != nil {
					var e *a2s.Error
					if !errors.As(perr, &e) {
						return fail(ExitInvalid, "%s: %v", name, perr)
					}
					diags = append(diags, e.Diagnostic())
					continue
				}
				docs = append(docs, d)
			}
			diags = append(diags, a2s.LintSet(docs)...)
			if err := printDiagnostics(io, diags, asJSON); err != nil {
				return err
			}
			if a2s.HasErrors(diags) {
				return silent(ExitInvalid)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"diagnostics": [...], "errors": N, "warnings": N}`)
	return cmd
}

func printDiagnostics(io Stdio, diags []a2s.Diagnostic, asJSON bool) error {
	errs, warns := 0, 0
	for _, d := range diags {
		if d.Severity == a2s.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	if asJSON {
		if diags == nil {
			diags = []a2s.Diagnostic{}
		}
		return writeJSON(io.Out, map[string]any{"diagnostics": diags, "errors": errs, "warnings": warns})
	}
	for _, d := range diags {
		if _, err := fmt.Fprintln(io.Out, d.String()); err != nil {
			return err
		}
	}
	if len(diags) > 0 {
		fmt.Fprintf(io.Err, "%s, %s\n", count(errs, "error"), count(warns, "warning"))
	}
	return nil
}

func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func newCapChecksumCmd(io Stdio) *cobra.Command {
	var verify bool
	cmd := &cobra.Command{
		Use:   "checksum FILE",
		Short: "Print a capability document's checksum (sha256:...); --verify checks its checksum field",
		Long: `Print the checksum of a capability document: sha256 of its RFC 8785 canonical
JSON with the checksum field left out. YAML and JSON forms of one document have
the same checksum.

With --verify, compare it with the document's checksum field (sha256:<hex> or
bare hex): exit 0 when they match, 1 on a mismatch or when the document has no
checksum, 2 when the document cannot be read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			data, diag, err := readCapability(name, io.In)
			if err != nil {
				return err
			}
			if diag != nil {
				return fail(ExitInvalid, "%s", diag.String())
			}
			tree, perr := a2s.ParseTree(data, a2s.Options{File: name, Format: a2s.FormatOf(name)})
			if perr != nil {
				return fail(ExitInvalid, "%v", perr)
			}
			sum, cerr := a2s.ComputeChecksum(tree)
			if cerr != nil {
				return fail(ExitInvalid, "%s: %v", name, cerr)
			}
			fmt.Fprintln(io.Out, sum)
			if !verify {
				return nil
			}
			given := tree.Get("checksum")
			switch {
			case given == nil || given.Kind != a2s.KindString:
				return fail(ExitFailed, "%s has no checksum field to verify", name)
			default:
				if verr := a2s.VerifyChecksum(tree, given.Str); verr != nil {
					if errors.Is(verr, a2s.ErrChecksumFormat) {
						return fail(ExitFailed, "%s:%d:%d: checksum %q is not sha256:<64 hex digits>", name, given.Pos.Line, given.Pos.Col, given.Str)
					}
					return fail(ExitFailed, "%s:%d:%d: checksum mismatch: the document gives %s", name, given.Pos.Line, given.Pos.Col, given.Str)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&verify, "verify", false, "check the document's checksum field; exit 1 on a mismatch")
	return cmd
}

func newCapSchemaCmd(io Stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema (2020-12) of capability documents",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := io.Out.Write(a2s.JSONSchema())
			return err
		},
	}
}

// readCapability reads FILE or "-" (stdin). A document over the size limit is
// a diagnostic (A2S002), like any other problem of the document; a file that
// cannot be opened is a usage error.
func readCapability(name string, stdin io.Reader) ([]byte, *a2s.Diagnostic, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, fail(ExitInvalid, "cannot read capability: %v", err)
		}
		defer f.Close()
		r = f
	}
	const limit = a2s.DefaultMaxBytes
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, nil, fail(ExitInvalid, "cannot read capability %s: %v", name, err)
	}
	if len(b) > limit {
		return nil, &a2s.Diagnostic{Rule: a2s.RuleLimit, Severity: a2s.SeverityError, File: name, Line: 1, Col: 1,
			Message: fmt.Sprintf("document is larger than the limit of %d bytes", limit)}, nil
	}
	return b, nil, nil
}
