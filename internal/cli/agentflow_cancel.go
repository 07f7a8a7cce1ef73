package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/urlpath"
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
	path := agentWorkflowRunsPath + "/" + urlpath.Segment(id) + "/cancel"
	if f.account != "" {
		path += "?" + url.Values{"account_id": {f.account}}.Encode()
	}
	c := runClient{base: base, key: key, http: &http.Client{Timeout: time.Minute}}
	status, raw, err := c.do(ctx, http.MethodPost, path, nil)
	if err != nil {
		return fail(ExitFailed, "%v", err)
	}
	if status/100 != 2 {
		return fail(ExitFailed, "run %s not cancelled: %s", id, answerMessage(status, raw))
	}
	var v runView
	if err := json.Unmarshal(raw, &v); err != nil || v.RunID == "" {
		return fail(ExitFailed, "the server's answer is not a run")
	}
	return writeRaw(io.Out, raw)
}
