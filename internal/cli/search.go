package cli

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/urlpath"
)

func newSearchCmd(io Stdio) *cobra.Command {
	var u, key, kind, kb string
	var topK int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search what your account may use on a server: API operations, operations, capabilities, knowledge",
		Long: `Ask the server's discovery (POST /api/v1/knowledge/search) for what is relevant to
QUERY among what the account may use, ranked. Reads SLUICE_URL and SLUICE_API_KEY.
Prints one line per result (score, kind, id, summary), or the JSON answer with --json.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := accountClient(u, key)
			if err != nil {
				return err
			}
			body := map[string]any{"query": strings.Join(args, " "), "top_k": topK}
			if kind != "" {
				body["type"] = kind
			}
			if kb != "" {
				body["kb_id"] = kb
			}
			var out struct {
				Results []struct {
					Kind    string  `json:"kind"`
					ID      string  `json:"id"`
					Name    string  `json:"name"`
					Summary string  `json:"summary"`
					Method  string  `json:"method"`
					URL     string  `json:"url"`
					Score   float64 `json:"score"`
				} `json:"results"`
			}
			if err := c.Do(cmd.Context(), "POST", "/api/v1/knowledge/search", body, &out); err != nil {
				return serverError(err)
			}
			if asJSON {
				return writeJSON(io.Out, out)
			}
			for _, r := range out.Results {
				what := r.Summary
				if r.Method != "" {
					what = r.Method + " " + r.URL + "  " + what
				}
				fmt.Fprintf(io.Out, "%6.2f  %-10s %s  %s\n", r.Score, r.Kind, r.ID, what)
			}
			if len(out.Results) == 0 {
				fmt.Fprintln(io.Err, "nothing found")
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&topK, "top-k", 10, "how many results")
	fl.StringVar(&kind, "kind", "", "only this kind: operation, api, capability, agent, tool, knowledge")
	fl.StringVar(&kb, "kb", "", "only this knowledge base")
	fl.BoolVar(&asJSON, "json", false, "print the JSON answer")
	fl.StringVar(&u, "url", "", "server URL (default $SLUICE_URL, else http://127.0.0.1:8080)")
	fl.StringVar(&key, "key", "", "API key, @FILE or env:VAR (default $SLUICE_API_KEY)")
	return cmd
}

func newAPICmd(io Stdio) *cobra.Command {
	cmd := &cobra.Command{Use: "api", Short: "Manage API knowledge bases on a server (admin)"}
	var af adminFlags
	af.register(cmd)
	var name, kind, format string
	var explainJSON bool
	imp := &cobra.Command{
		Use:   "import FILE --name NAME",
		Short: "Import an OpenAPI document (each operation an API entry NAME.operationId) or a text knowledge base",
		Long: `Send FILE to POST /api/v1/admin/apis. An OpenAPI 3.0/3.1 document (the default
kind) becomes API entries NAME.operationId that accounts granted the API "NAME"
(apis) see in availableApis and may call (the grant implies the API's hosts); with
--kind text the file is a knowledge base searched by section. Importing NAME again
replaces it. Prints the knowledge base; exit 1 when the server refuses it. On a
terminal, stderr says what is sent and how many entries the server made of it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				return fail(ExitInvalid, "--name is required: the id accounts are granted")
			}
			data, err := readDocument(args[0], io.In, 4<<20)
			if err != nil {
				return err
			}
			if format == "" {
				format = strings.TrimPrefix(filepath.Ext(args[0]), ".")
			}
			c, err := af.client()
			if err != nil {
				return err
			}
			// The server parses and indexes the document in one request: a
			// person on a terminal sees it start and how many entries it made.
			if terminal(io) {
				fmt.Fprintf(io.Err, "importing %s (%d bytes) as %s …\n", args[0], len(data), name)
			}
			var out map[string]any
			body := map[string]any{"name": name, "document": string(data), "kind": kind, "format": format}
			if err := c.Do(cmd.Context(), "POST", "/api/v1/admin/apis", body, &out); err != nil {
				return serverError(err)
			}
			if terminal(io) {
				fmt.Fprintf(io.Err, "imported %s: %v entries\n", name, out["entries"])
			}
			return writeJSON(io.Out, out)
		},
	}
	imp.Flags().StringVar(&name, "name", "", "the knowledge base's name (letters, digits, _ and -)")
	imp.Flags().StringVar(&kind, "kind", "openapi", "openapi or text")
	imp.Flags().StringVar(&format, "format", "", "json, yaml, markdown or text (default: the file's extension)")
	var listOut string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the knowledge bases (an array of them)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, c, err := io.start(listOut, af.client)
			if err != nil {
				return err
			}
			var out struct {
				APIs []json.RawMessage `json:"apis"`
			}
			if err := c.Do(cmd.Context(), "GET", "/api/v1/admin/apis", nil, &out); err != nil {
				return serverError(err)
			}
			if out.APIs == nil {
				out.APIs = []json.RawMessage{}
			}
			return io.render(format, out.APIs, "name", "kind", "entries")
		},
	}
	addOutputFlag(list, &listOut)
	rm := &cobra.Command{
		Use:   "rm NAME",
		Short: "Delete a knowledge base and its entries",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := af.client()
			if err != nil {
				return err
			}
			if err := c.Do(cmd.Context(), "DELETE", "/api/v1/admin/apis/"+urlpath.Segment(args[0]), nil, nil); err != nil {
				return serverError(err)
			}
			return nil
		},
	}
	explain := &cobra.Command{
		Use:   "explain QUERY",
		Short: "Show what a query searches for: its words and each expansion, with where it came from",
		Long: `Ask GET /api/v1/admin/discovery/explain how the server's discovery analyzes QUERY:
one line per term searched, with its weight against a query word's 1, why it is
searched (query, synonym, question, value, compound, wordnet, word_vectors), the
query word it came from and how many entries hold it (0: it finds nothing). Use it
to see why a query finds what it finds, and to try discovery.abbreviations and
discovery.synonyms. Admin only: expansions name words of every entry.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := af.client()
			if err != nil {
				return err
			}
			var out struct {
				Query string                `json:"query"`
				Terms []discovery.QueryTerm `json:"terms"`
			}
			path := "/api/v1/admin/discovery/explain?query=" + url.QueryEscape(strings.Join(args, " "))
			if err := c.Do(cmd.Context(), "GET", path, nil, &out); err != nil {
				return serverError(err)
			}
			if explainJSON {
				return writeJSON(io.Out, out)
			}
			for _, t := range out.Terms {
				from := ""
				if t.From != "" {
					from = "from " + t.From
				}
				fmt.Fprintf(io.Out, "%-20s %5.2f  %-12s %-20s %d entries\n", t.Term, t.Weight, t.Via, from, t.DF)
			}
			if len(out.Terms) == 0 {
				fmt.Fprintln(io.Err, "nothing to search by")
			}
			return nil
		},
	}
	explain.Flags().BoolVar(&explainJSON, "json", false, "print the JSON answer")
	cmd.AddCommand(imp, list, rm, explain)
	cmd.AddCommand(learnCommands(io, &af)...)
	return cmd
}
