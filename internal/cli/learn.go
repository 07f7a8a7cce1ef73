package cli

import (
	"fmt"
	"net/url"
	"sort"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/discovery"
)

// learnCommands are `sluice api learn|usage|forget`: learning from use on a
// server (docs/discovery.md).
func learnCommands(io Stdio, af *adminFlags) []*cobra.Command {
	var split string
	learn := &cobra.Command{
		Use:   "learn FILE",
		Short: "Teach the server's discovery example questions: each line's query finds its entries from then on",
		Long: `Read FILE, labeled questions one JSON object a line ({"query": "...",
"relevant": ["NAME.operationId", ...]}, the form of sluice bench discovery), and
send each query with each of its entries to POST /api/v1/discovery/feedback, as
the key's account. The catalog learns the query's words for those entries (once
per account and word) and finds them with those words from then on: the way to
teach it your users' vocabulary. --split takes one split of the file only.
Prints how many queries and entries were sent and how many words were new; exit 1
when the server refuses a line, naming it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			qs, err := readLabeledFile(args[0])
			if err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			if qs, err = discovery.FilterSplit(qs, split); err != nil {
				return fail(ExitInvalid, "--split: %v", err)
			}
			c, err := af.client()
			if err != nil {
				return err
			}
			sent, fresh := 0, 0
			for _, q := range qs {
				for _, id := range q.Relevant {
					var out struct {
						New int `json:"new"`
					}
					if err := c.Do(cmd.Context(), "POST", "/api/v1/discovery/feedback", map[string]any{"query": q.Query, "id": id}, &out); err != nil {
						return fail(ExitFailed, "%s line %d (%s): %v", args[0], q.Line, id, serverError(err))
					}
					sent++
					fresh += out.New
				}
			}
			fmt.Fprintf(io.Out, "%d queries, %d entries taught, %d new words\n", len(qs), sent, fresh)
			return nil
		},
	}
	learn.Flags().StringVar(&split, "split", "all", "the lines to send: train, heldout, fresh or all")

	var kind, id string
	var asJSON, all bool
	usage := &cobra.Command{
		Use:   "usage",
		Short: "List the words use taught discovery, per entry, with how many accounts taught each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := af.client()
			if err != nil {
				return err
			}
			q := url.Values{}
			if id != "" {
				q.Set("id", id)
			}
			if kind != "" {
				q.Set("kind", kind)
			}
			var out struct {
				Entries []struct {
					Kind  string         `json:"kind"`
					ID    string         `json:"id"`
					Words map[string]int `json:"words"`
				} `json:"entries"`
			}
			if err := c.Do(cmd.Context(), "GET", "/api/v1/admin/discovery/usage?"+q.Encode(), nil, &out); err != nil {
				return serverError(err)
			}
			if asJSON {
				return writeJSON(io.Out, out)
			}
			for _, e := range out.Entries {
				words := make([]string, 0, len(e.Words))
				for w := range e.Words {
					words = append(words, w)
				}
				// Most taught first.
				sort.Slice(words, func(i, j int) bool {
					a, b := e.Words[words[i]], e.Words[words[j]]
					return a > b || a == b && words[i] < words[j]
				})
				fmt.Fprintf(io.Out, "%s %s:", e.Kind, e.ID)
				for _, w := range words {
					fmt.Fprintf(io.Out, " %s×%d", w, e.Words[w])
				}
				fmt.Fprintln(io.Out)
			}
			if len(out.Entries) == 0 {
				fmt.Fprintln(io.Err, "nothing learnt")
			}
			return nil
		},
	}
	usage.Flags().StringVar(&id, "id", "", "only this entry")
	usage.Flags().StringVar(&kind, "kind", "", "the entry's kind (with --id)")
	usage.Flags().BoolVar(&asJSON, "json", false, "print the JSON answer")

	forget := &cobra.Command{
		Use:   "forget (--kind KIND --id ID | --all)",
		Short: "Forget what use taught discovery about one entry, or about all",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all == (id != "") || (id == "") != (kind == "") {
				return fail(ExitInvalid, "forget needs --kind and --id, or --all")
			}
			if kind != "" && !discovery.Kind(kind).Valid() {
				return fail(ExitInvalid, "--kind: want one of operation, api, capability, agent, tool, knowledge, got %q", kind)
			}
			c, err := af.client()
			if err != nil {
				return err
			}
			q := url.Values{}
			if !all {
				q.Set("kind", kind)
				q.Set("id", id)
			}
			var out struct {
				Deleted int `json:"deleted"`
			}
			if err := c.Do(cmd.Context(), "DELETE", "/api/v1/admin/discovery/usage?"+q.Encode(), nil, &out); err != nil {
				return serverError(err)
			}
			fmt.Fprintf(io.Out, "%d words of accounts forgotten\n", out.Deleted)
			return nil
		},
	}
	forget.Flags().StringVar(&id, "id", "", "the entry")
	forget.Flags().StringVar(&kind, "kind", "", "the entry's kind")
	forget.Flags().BoolVar(&all, "all", false, "forget everything learnt")
	return []*cobra.Command{learn, usage, forget}
}
