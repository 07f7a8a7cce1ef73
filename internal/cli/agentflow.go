package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// maxPollFailures is how many polls in a row may fail (server unreachable
// or 5xx, as during a restart) before the command gives up.
const maxPollFailures = 10

type runWorkflowFlags struct {
	input, url, key string
	poll            time.Duration
}

// newAgentsRunWorkflowCmd is `sluice agents run-workflow FILE`.
func newAgentsRunWorkflowCmd(io Stdio) *cobra.Command {
	var f runWorkflowFlags
	cmd := &cobra.Command{
		Use:   "run-workflow FILE --input JSON",
		Short: "Run a multi-step agent workflow on the server and print the run",
		Long: `Run a multi-step agent workflow (the seed platform's format: {workflow_id, name,
version, start_step, steps: {id: {id, agent_name, next_step, input_mapping}}})
on the server: the file is checked here first, then POSTed with its input to
/api/v1/agent-workflows/runs; the run is polled until it ends and printed as
JSON (its status, each step's state, every step's output and the final one).
FILE may be - for stdin. Reads SLUICE_URL and SLUICE_API_KEY (--url, --key).

Exit 0 when the run succeeded, 1 when it failed or the server refused it (the
reason on stderr), 2 for an invalid workflow or input (nothing is sent).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAgentWorkflow(cmd.Context(), io, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "{}", "the workflow's input: a JSON object or @FILE")
	fl.StringVar(&f.url, "url", "", "server URL (default $SLUICE_URL, else http://127.0.0.1:8080)")
	fl.StringVar(&f.key, "key", "", "API key, @FILE or env:VAR (default $SLUICE_API_KEY)")
	fl.DurationVar(&f.poll, "poll-interval", 500*time.Millisecond, "how often to ask for the run's state")
	return cmd
}

// runView is the part of a run the command reads; the whole answer is
// printed as it came.
type runView struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

func (v runView) final() bool {
	switch v.Status {
	case "success", "failed", "partial", "cancelled":
		return true
	}
	return false
}

func runAgentWorkflow(ctx context.Context, io Stdio, file string, f runWorkflowFlags) error {
	doc, err := readDocument(file, io.In, agenthttp.DefaultMaxWorkflowBytes)
	if err != nil {
		return err
	}
	wf, err := agenthttp.DecodeWorkflow(doc, agenthttp.Limits{})
	if err == nil {
		err = wf.CheckNestedRefs() // the server refuses these too: say so before sending
	}
	if err != nil {
		var ae *agenthttp.Error
		if errors.As(err, &ae) && ae.Offset > 0 {
			line, col := lineCol(doc, ae.Offset)
			return fail(ExitInvalid, "%s:%d:%d: %s", file, line, col, strings.TrimPrefix(err.Error(), "agenthttp: "))
		}
		return fail(ExitInvalid, "%s: %s", file, strings.TrimPrefix(err.Error(), "agenthttp: "))
	}
	in, err := readValue("--input", f.input, 8<<20)
	if err != nil {
		return err
	}
	var input map[string]json.RawMessage
	if err := json.Unmarshal([]byte(in), &input); err != nil || input == nil {
		return fail(ExitInvalid, "--input is not a JSON object (a workflow's input is an object)")
	}
	if f.poll <= 0 {
		return fail(ExitInvalid, "--poll-interval must be positive")
	}
	base, key, err := accountTarget(f.url, f.key)
	if err != nil {
		return err
	}
	enc, err := agenthttp.EncodeWorkflow(wf)
	if err != nil {
		return fail(ExitInvalid, "%s: %v", file, err)
	}
	c := client.New(base, key, &http.Client{Timeout: time.Minute})
	raw, err := c.StartAgentWorkflowRun(ctx, enc, json.RawMessage(in))
	if status, body, ok := refusal(err); ok {
		return fail(ExitFailed, "the server refused the run: %s", answerMessage(status, body))
	} else if err != nil {
		return fail(ExitFailed, "%v", reachError(base, err))
	}
	var v runView
	if err := json.Unmarshal(raw, &v); err != nil || v.RunID == "" {
		return fail(ExitFailed, "the server's answer names no run_id")
	}
	failures := 0
	for !v.final() {
		t := time.NewTimer(f.poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return fail(ExitFailed, "stopped waiting for run %s (it goes on on the server)", v.RunID)
		case <-t.C:
		}
		got, err := c.AgentWorkflowRun(ctx, v.RunID)
		status, body, refused := refusal(err)
		switch {
		case err != nil && (!refused || status/100 == 5):
			// Unreachable or 5xx, as during a restart: try again a few times.
			if failures++; failures >= maxPollFailures {
				if refused {
					err = errors.New(answerMessage(status, body))
				} else {
					err = reachError(base, err)
				}
				return fail(ExitFailed, "run %s: cannot read its state: %v", v.RunID, err)
			}
			continue
		case err != nil:
			return fail(ExitFailed, "run %s: %s", v.RunID, answerMessage(status, body))
		}
		failures = 0
		if err := json.Unmarshal(got, &v); err != nil {
			return fail(ExitFailed, "run %s: the server's answer is not a run", v.RunID)
		}
		raw = got
	}
	if err := writeRaw(io.Out, raw); err != nil {
		return err
	}
	if v.Status != "success" {
		msg := "run " + v.RunID + " " + v.Status
		if len(v.Errors) > 0 && v.Errors[0].Message != "" {
			msg += ": " + v.Errors[0].Message
		}
		return fail(ExitFailed, "%s", msg)
	}
	return nil
}

// refusal reports whether err is the server's answer other than 2xx, with
// its status and body (for answerMessage).
func refusal(err error) (int, []byte, bool) {
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.Status, ce.Body, true
	}
	return 0, nil, false
}

// answerMessage is the message of an error answer ({"error": {"message"}}
// and the like), or its status.
func answerMessage(status int, raw []byte) string {
	msg := agenthttp.ErrorMessage(raw, 0)
	if msg == "" {
		msg = http.StatusText(status)
	}
	return fmt.Sprintf("HTTP %d: %s", status, msg)
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(doc []byte, off int) (int, int) {
	if off > len(doc) {
		off = len(doc)
	}
	line := 1 + bytes.Count(doc[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(doc[:off], '\n')
	return line, col
}
