package cli

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/validate"
)

func newValidateCmd(io Stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE|-",
		Short: "Validate an A2E workflow and print the validate response JSON",
		Long: `Validate an A2E workflow (JSONL) on all five levels of the spec: structure,
catalog, permission, dependency and type. Prints {"valid", "errors", "warnings"};
every problem names its line, operationId, JSON path and suggestions.
Exit 0 when valid, 2 when invalid.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			doc, err := readDocument(args[0], io.In, maxDocumentBytes)
			if err != nil {
				return err
			}
			report := validate.Document(doc, validate.Options{Env: catalog(nil)})
			if err := writeJSON(io.Out, report); err != nil {
				return err
			}
			if !report.Valid {
				return silent(ExitInvalid)
			}
			return nil
		},
	}
}

// maxDocumentBytes is the default document limit of RESOLUTIONS (1 MiB).
const maxDocumentBytes = 1 << 20

func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// catalog is every built-in operation, allowed, with deps (nil: none — enough to
// validate configs, not to run).
func catalog(d *op.Deps) *op.Environment {
	if d == nil {
		d = &op.Deps{Limits: op.DefaultLimits()}
	}
	return op.NewEnvironment(d, op.Builtins()...)
}
