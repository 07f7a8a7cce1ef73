package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// publishPath is where the server takes new registry versions.
const publishPath = "/api/v1/a2s/registry"

func newCapPublishCmd(io Stdio) *cobra.Command {
	var af adminFlags
	var namespace string
	cmd := &cobra.Command{
		Use:   "publish FILE [--namespace NS]",
		Short: "Publish a capability document to the server's registry as NS/ID@VERSION",
		Long: `Publish a capability document to the registry of the server at --url
($SLUICE_URL) with the admin key (--admin-key, $SLUICE_ADMIN_KEY). Documents
carry no namespace: --namespace gives it (default "default"), and the
capability is then addressed NS/ID.

The document is linted here first: problems are printed on stderr as
file:line:col: severity: ID message, and errors stop the publish (exit 2), as
does a document without a checksum (` + "`sluice cap checksum FILE`" + ` computes it).
The server lints and verifies the checksum again, keeps every version and
never changes one: publishing the same version again with the same checksum
is a no-op, with another checksum a refusal.

The server's answer (the registry entry, without the document) is printed as
JSON. Exit 0 when published, 1 when the server refused, 2 on invalid input
(the server's 400 included).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := store.CheckCapabilityNamespace("--namespace", namespace); err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			data, diag, err := readCapability(name, io.In)
			if err != nil {
				return err
			}
			if diag != nil {
				fmt.Fprintln(io.Err, diag.String())
				return silent(ExitInvalid)
			}
			doc, diags := a2s.LintBytes(data, a2s.Options{File: name, Format: a2s.FormatOf(name)})
			for _, d := range diags {
				fmt.Fprintln(io.Err, d.String())
			}
			if a2s.HasErrors(diags) {
				return fail(ExitInvalid, "%s does not lint clean; nothing was published", name)
			}
			if !doc.Checksum.Set() {
				sum, _ := doc.ComputeChecksum()
				return fail(ExitInvalid, "%s has no checksum, which a published document must carry: add checksum: %q", name, sum)
			}
			c, err := af.client()
			if err != nil {
				return err
			}
			file := filepath.Base(name)
			if name == "-" {
				file = ""
			}
			var answer json.RawMessage
			err = c.Do(cmd.Context(), http.MethodPost, publishPath,
				capreg.PublishRequest{Namespace: namespace, Document: string(data), File: file}, &answer)
			if err != nil {
				printRemoteDiagnostics(io, err)
				return serverError(err)
			}
			return writeJSON(io.Out, withoutDocument(answer))
		},
	}
	af.register(cmd)
	cmd.Flags().StringVar(&namespace, "namespace", capreg.DefaultNamespace, "namespace to publish in: segments of a-z, 0-9, _ and - joined by /")
	return cmd
}

// withoutDocument drops the document from the server's answer, whether it is
// the entry itself or an object holding it ({"capability": {...},
// "warnings": [...]}); an answer of another shape is printed as it is.
func withoutDocument(answer json.RawMessage) any {
	var m map[string]json.RawMessage
	if json.Unmarshal(answer, &m) != nil {
		return answer
	}
	delete(m, "document")
	for k, inner := range m {
		var e map[string]json.RawMessage
		if json.Unmarshal(inner, &e) == nil {
			if _, ok := e["document"]; ok {
				delete(e, "document")
				b, _ := json.Marshal(e)
				m[k] = b
			}
		}
	}
	return m
}

// printRemoteDiagnostics prints the lint diagnostics a refusal carries
// (details.diagnostics), so a server that lints differently is explained.
func printRemoteDiagnostics(io Stdio, err error) {
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Details["diagnostics"] == nil {
		return
	}
	raw, _ := json.Marshal(ce.Details["diagnostics"])
	var diags []a2s.Diagnostic
	if json.Unmarshal(raw, &diags) != nil {
		return
	}
	for _, d := range diags {
		fmt.Fprintln(io.Err, d.String())
	}
}
