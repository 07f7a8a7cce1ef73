package cli

import (
	"encoding/json"
	"os"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
)

func newCapDecideCmd(io Stdio) *cobra.Command {
	var url, key, answer string
	cmd := &cobra.Command{
		Use:   "decide RUN --answer JSON",
		Short: "Answer the task a capability run waits for (its prompt or decision) on a server",
		Long: `Send the answer a waiting run asks for (POST /api/v1/a2s/runs/RUN/decisions) and
print the run's outcome as JSON. The answer must match the run's
pending.expected_output. Reads SLUICE_URL and SLUICE_API_KEY.

Exit 0 when the run succeeds, 3 when it waits again, 1 when it failed or the
server refused, 2 for a bad flag or an answer the server finds invalid (400).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if answer == "" {
				return fail(ExitInvalid, "--answer is required: the JSON the run waits for")
			}
			v, err := readValue("--answer", answer, 1<<20)
			if err != nil {
				return err
			}
			if !json.Valid([]byte(v)) {
				return fail(ExitInvalid, "--answer is not JSON")
			}
			c, err := accountClient(url, key)
			if err != nil {
				return err
			}
			r, err := c.Decide(cmd.Context(), args[0], json.RawMessage(v))
			if err != nil {
				return serverError(err)
			}
			if err := writeJSON(io.Out, r); err != nil {
				return err
			}
			switch r.Status {
			case "success":
				return nil
			case "waiting":
				return silent(ExitWaiting)
			}
			return silent(ExitFailed)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&answer, "answer", "", "the answer: JSON or @FILE")
	fl.StringVar(&url, "url", "", "server URL (default $SLUICE_URL, else http://127.0.0.1:8080)")
	fl.StringVar(&key, "key", "", "API key, @FILE or env:VAR (default $SLUICE_API_KEY)")
	return cmd
}

// accountClient is a client of the server at --url or SLUICE_URL with the
// key of --key or SLUICE_API_KEY.
func accountClient(url, key string) (*client.Client, error) {
	if url == "" {
		url = os.Getenv("SLUICE_URL")
	}
	if url == "" {
		url = "http://127.0.0.1:8080"
	}
	k := os.Getenv("SLUICE_API_KEY")
	if key != "" {
		v, err := readValue("--key", key, 4<<10)
		if err != nil {
			return nil, err
		}
		k = v
	}
	if k == "" {
		return nil, fail(ExitInvalid, "no API key: set SLUICE_API_KEY or pass --key")
	}
	return client.New(url, k, nil), nil
}
