package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/engine"
)

// accountFlags are --url and --key of a command that calls the server as
// an account: SLUICE_URL and SLUICE_API_KEY by default. An operator with
// only SLUICE_ADMIN_KEY set acts as that admin account.
type accountFlags struct {
	url, key string
}

func (f *accountFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.url, "url", "", "server URL (default $SLUICE_URL, else http://127.0.0.1:8080)")
	cmd.Flags().StringVar(&f.key, "key", "", "API key, @FILE or env:VAR (default $SLUICE_API_KEY, else $SLUICE_ADMIN_KEY)")
}

func (f *accountFlags) client() (*client.Client, error) {
	key := f.key
	if key == "" && os.Getenv("SLUICE_API_KEY") == "" && os.Getenv("SLUICE_ADMIN_KEY") != "" {
		key = "env:SLUICE_ADMIN_KEY"
	}
	return accountClient(f.url, key)
}

type execFlags struct {
	acct          accountFlags
	input, id     string
	output        string
	async, follow bool
}

func newExecCmd(io Stdio) *cobra.Command {
	var f execFlags
	cmd := &cobra.Command{
		Use:   "exec FILE|- [--input JSON|@FILE] [--async | --follow] [--id ID] [-o json|yaml|table]",
		Short: "Run an A2E workflow on a sluice server and print its execution",
		Long: `Send an A2E workflow (JSONL; - reads stdin) to the server at $SLUICE_URL as the
account of $SLUICE_API_KEY (POST /api/v1/workflows/execute) and print the
execution {execution_id, status, results, errors, ...}.

  sluice exec flow.jsonl --input '{"city": "Oslo"}'
  sluice exec flow.jsonl --input @input.json --follow    # a line per step as it runs
  sluice exec flow.jsonl --async                         # print the id and return
  sluice exec flow.jsonl --follow -o json | jq .         # the frames as NDJSON

--async queues the execution and prints {execution_id, status: "queued"};
follow it later with sluice runs tail ID. --follow queues it too and shows
each step started, finished, retried or failed (on stderr; with -o json the
stream's frames go to stdout, one JSON object a line), then the execution.
--id sets the document's beginExecution executionId, the server's idempotency
key for the account: the same id with the same document answers the execution
already run instead of running it again (with another document, 409). The
server names the execution itself (execution_id, which sluice runs takes) and
shows the id given as client_execution_id.

Exit 0 when the workflow succeeded (or was queued with --async), 1 when it
failed, partly failed or was cancelled, or the server refused it, 2 when the
document, --input or a flag is invalid (the validation report is printed),
3 when it waits for a decision.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return execRemote(cmd, io, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "", "the /input object: JSON or @FILE")
	fl.BoolVar(&f.async, "async", false, "queue the execution, print its id and return")
	fl.BoolVar(&f.follow, "follow", false, "queue the execution and show each step as it runs, then the execution")
	fl.StringVar(&f.id, "id", "", "the document's executionId: the idempotency key (shown as client_execution_id)")
	addOutputFlag(cmd, &f.output)
	f.acct.register(cmd)
	return cmd
}

func execRemote(cmd *cobra.Command, io Stdio, file string, f execFlags) error {
	format, err := io.outputFormat(f.output)
	if err != nil {
		return err
	}
	if f.async && f.follow {
		return fail(ExitInvalid, "--async and --follow exclude each other (--follow queues the execution too)")
	}
	input, err := parseInput(f.input)
	if err != nil {
		return err
	}
	doc, err := readDocument(file, io.In, maxDocumentBytes)
	if err != nil {
		return err
	}
	if f.id != "" {
		if doc, err = withExecutionID(doc, f.id); err != nil {
			return err
		}
	}
	c, err := f.acct.client()
	if err != nil {
		return err
	}
	opts := client.ExecuteOptions{Async: f.async || f.follow}
	if input != nil {
		opts.Input = input.(map[string]any)
	}
	ctx := cmd.Context()
	ex, err := c.Execute(ctx, string(doc), opts)
	var ce *client.Error
	if errors.As(err, &ce) && ce.Report != nil {
		// The validation report says what and where: it is the answer. A
		// person reads it a problem a line, whole (a table would cut it).
		if format != outTable {
			if err := io.render(format, ce.Report); err != nil {
				return err
			}
			return silent(ExitInvalid)
		}
		for _, pr := range ce.Report.Errors {
			fmt.Fprintln(io.Out, problemLine("error", pr))
		}
		for _, pr := range ce.Report.Warnings {
			fmt.Fprintln(io.Out, problemLine("warning", pr))
		}
		return silent(ExitInvalid)
	}
	if err != nil {
		return serverError(err)
	}
	if f.follow {
		if ex, err = followRun(c, cmd, io, format, ex.ExecutionID, io.Err); err != nil {
			return err
		}
		if format == outJSON {
			return statusExit(ex.Status) // the frames said it all
		}
	}
	if err := io.render(format, ex, "execution_id", "client_execution_id", "status"); err != nil {
		return err
	}
	return statusExit(ex.Status)
}

// followRun follows an execution's frames until its end: with -o json each
// frame as a line on stdout, else a progress line per step on progressTo.
// It returns the execution's record, or when that is not final yet (it may
// be written a moment after the final frame) the final frame's result.
func followRun(c *client.Client, cmd *cobra.Command, io Stdio, format, id string, progressTo interface{ Write([]byte) (int, error) }) (*client.Execution, error) {
	p := newProgress(progressTo)
	var final *streamEnd
	err := followFrames(cmd.Context(), c, id, 0, func(fr client.Frame) error {
		if f := finalOf(fr.Data); f != nil {
			final = f
		}
		if format == outJSON {
			return writeCompact(io, fr.Data)
		}
		p.frame(fr.Data)
		return nil
	})
	if err != nil {
		return nil, serverError(err)
	}
	rec, err := c.Execution(cmd.Context(), id)
	if err != nil {
		return nil, serverError(err)
	}
	if rec.Final() || final == nil || final.Kind != "e2a.complete" {
		return rec, nil // the record, whole (client_execution_id, created_at)
	}
	// The record is not final yet: the frame's result over it (the members
	// the result has replace the record's; the others stay).
	if err := json.Unmarshal(final.Body.Result, rec); err != nil {
		return nil, fail(ExitFailed, "the final frame of %s holds no execution: %v", id, err)
	}
	return rec, nil
}

// streamEnd is what the final frame of a run's stream says: an
// e2a.complete's result (the run as it ended, its status in it) or an
// e2a.error's message.
type streamEnd struct {
	Kind    string `json:"response_kind"`
	IsFinal bool   `json:"is_final"`
	Body    struct {
		Result  json.RawMessage `json:"result"`
		Message string          `json:"message"`
	} `json:"body"`
}

// finalOf decodes a frame if it is the final one (nil otherwise).
func finalOf(raw json.RawMessage) *streamEnd {
	var f streamEnd
	if json.Unmarshal(raw, &f) != nil || !f.IsFinal {
		return nil
	}
	return &f
}

// status is the run's final status: its result's, failed for an error.
func (f *streamEnd) status() string {
	var r struct {
		Status string `json:"status"`
	}
	if f.Kind == "e2a.complete" && json.Unmarshal(f.Body.Result, &r) == nil && r.Status != "" {
		return r.Status
	}
	return "failed"
}

// problemLine is one problem of a validation report on one line:
// "error: line 2 big /path: message", with its control characters escaped.
func problemLine(severity string, p client.Problem) string {
	where := ""
	if p.Line > 0 {
		where += fmt.Sprintf(" line %d", p.Line)
	}
	if p.OperationID != "" {
		where += " " + p.OperationID
	}
	if p.Path != "" {
		where += " " + p.Path
	}
	return printable(fmt.Sprintf("%s:%s: %s: %s", severity, where, p.Type, p.Message))
}

// followFrames follows a run's frames after sequence after to its end,
// through client.RunEvents. A connection that breaks (a proxy's timeout, a
// gateway restarting) is resumed after the last frame received, a few
// times with a growing pause, so no frame is lost or shown twice; an
// answer of the server (*client.Error) or fn's error ends it.
func followFrames(ctx context.Context, c *client.Client, id string, after int64, fn func(client.Frame) error) error {
	var fnErr error
	pause := 200 * time.Millisecond
	for attempt := 0; ; attempt++ {
		_, err := c.RunEvents(ctx, id, after, func(fr client.Frame) error {
			if fr.Seq <= after {
				return nil // sent again after a resume
			}
			if fnErr = fn(fr); fnErr != nil {
				return fnErr
			}
			after = fr.Seq
			return nil
		})
		var ce *client.Error
		if err == nil || fnErr != nil || errors.As(err, &ce) || ctx.Err() != nil || attempt == 4 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause *= 2
	}
}

// writeCompact prints one JSON value on one line (NDJSON).
func writeCompact(io Stdio, raw json.RawMessage) error {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return fmt.Errorf("a frame is not JSON: %v", err)
	}
	b.WriteByte('\n')
	_, err := io.Out.Write(b.Bytes())
	return err
}

// frame prints the progress line of one stored E2A frame: a chunk carrying
// an engine event is the same line `sluice run` prints for it; the final
// frame says how the run ended; other frames (another kind's events) show
// their kind.
func (p *progress) frame(raw json.RawMessage) {
	if f := finalOf(raw); f != nil {
		if f.Kind == "e2a.complete" {
			p.line("■ %s", strings.ToUpper(f.status()))
		} else {
			p.line("■ %s: %s", f.Kind, f.Body.Message)
		}
		return
	}
	var fr struct {
		Body struct {
			Delta json.RawMessage `json:"delta"`
		} `json:"body"`
	}
	if json.Unmarshal(raw, &fr) != nil || len(fr.Body.Delta) == 0 {
		return
	}
	var ev struct {
		engine.Event
		Type string `json:"type"`
	}
	if json.Unmarshal(fr.Body.Delta, &ev) != nil {
		return
	}
	if ev.Type == "execution.event" {
		if ev.Kind != engine.EventExecutionFinished { // the final frame says it, once
			p.event(ev.Event)
		}
		return
	}
	if ev.Type != "" {
		p.line("  · %s", ev.Type)
	}
}

func (p *progress) line(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w, printable(fmt.Sprintf(format, args...)))
}

// withExecutionID sets the executionId of doc's beginExecution message.
func withExecutionID(doc []byte, id string) ([]byte, error) {
	lines := bytes.Split(doc, []byte("\n"))
	for i, l := range lines {
		var m map[string]any
		if json.Unmarshal(bytes.TrimSpace(l), &m) != nil || m["type"] != "beginExecution" {
			continue
		}
		m["executionId"] = id
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fail(ExitInvalid, "--id: line %d cannot be rewritten: %v", i+1, err)
		}
		lines[i] = b
		return bytes.Join(lines, []byte("\n")), nil
	}
	return nil, fail(ExitInvalid, "--id: the workflow has no beginExecution message to carry the id")
}
