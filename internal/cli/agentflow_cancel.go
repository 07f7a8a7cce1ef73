package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
)

type cancelRunFlags struct {
	url, key, account string
}

// newAgentsCancelRunCmd is `sluice agents cancel-run ID`.
func newAgentsCancelRunCmd(io Stdio) *cobra.Command {
	var f cancelRunFlags
	cmd := &cobra.Command{
		Use:   "cancel-run ID",
		Short: "Cancel an agent workflow run that has not finished and print it",
		Long: `Cancel an agent workflow run (POST /api/v1/agent-workflows/runs/ID/cancel): no
further step starts, a step in flight is stopped (or its late result discarded),
and the steps already completed keep their outputs. The cancelled run is
printed as JSON. Reads SLUICE_URL and SLUICE_API_KEY (--url, --key). An admin
key may cancel another account's run with --account ACCOUNT_ID.

Exit 0 when the run is cancelled, 1 when the server refuses (unknown run: 404;
finished already: 409, with its status) or cannot be reached, 2 for bad
arguments (nothing is sent).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cancelAgentRun(cmd.Context(), io, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "server URL (default $SLUICE_URL, else http://127.0.0.1:8080)")
	fl.StringVar(&f.key, "key", "", "API key, @FILE or env:VAR (default $SLUICE_API_KEY)")
	fl.StringVar(&f.account, "account", "", "the run's account (an admin key cancelling another account's run)")
	return cmd
}

func cancelAgentRun(ctx context.Context, io Stdio, id string, f cancelRunFlags) error {
	if strings.TrimSpace(id) == "" {
		return fail(ExitInvalid, "the run ID is empty")
	}
	base, key, err := accountTarget(f.url, f.key)
	if err != nil {
		return err
	}
	c := client.New(base, key, &http.Client{Timeout: time.Minute})
	raw, err := c.CancelAgentWorkflowRun(ctx, id, f.account)
	if status, body, ok := refusal(err); ok {
		return fail(ExitFailed, "run %s not cancelled: %s", id, answerMessage(status, body))
	} else if err != nil {
		return fail(ExitFailed, "%v", reachError(base, err))
	}
	var v runView
	if err := json.Unmarshal(raw, &v); err != nil || v.RunID == "" {
		return fail(ExitFailed, "the server's answer is not a run")
	}
	return writeRaw(io.Out, raw)
}
