package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/agent"
)

type mockAgentFlags struct {
	name      string
	host      string
	port      int
	delay     time.Duration
	errorMode string
	errorRate float64
}

func newMockAgentCmd(io Stdio) *cobra.Command {
	var f mockAgentFlags
	cmd := &cobra.Command{
		Use:   "mock-agent [--name N] [--port P] [--delay D] [--error-mode none|timeout|4xx|5xx] [--error-rate R]",
		Short: "Run a test HTTP task agent (the contract of docs/protocols/agent-http.md)",
		Long: `Serve a test agent of the HTTP task contract until interrupted.

POST / (any path but /health) with {"task_id", "input"} answers after --delay
with {"task_id", "status": "success", "output": {"agent", "echo": <input>,
"processed_at"}, "error": null}. An input holding "mock_error": "message" gets
a 200 with status "error" and that message. GET /health answers
{"status": "healthy", "agent": NAME}.

--error-mode makes a share of tasks (--error-rate, 0 to 1; 1 when only the
mode is given) fail: timeout holds the request until the caller gives up,
4xx answers 400 and 5xx answers 503, each with the spec's {"error": ...} body.

When it listens, one JSON line {"name", "url"} is printed on stdout: by
default on a free port, so read the URL from that line (or pass --port);
requests are logged on stderr. It listens on 127.0.0.1
unless --host says otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd)
			if err != nil {
				return err
			}
			addr := net.JoinHostPort(f.host, strconv.Itoa(f.port))
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fail(ExitFailed, "cannot listen on %s: %v", addr, err)
			}
			return runMockAgent(cmd.Context(), io, ln, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "mock-agent", "the agent's name (letters, digits, '_' and '-')")
	fl.StringVar(&f.host, "host", "127.0.0.1", "the address to listen on (0.0.0.0 for every interface)")
	fl.IntVar(&f.port, "port", 0, "the port to listen on (default: a free one, printed)")
	fl.DurationVar(&f.delay, "delay", 0, "how long each task takes, e.g. 250ms")
	fl.StringVar(&f.errorMode, "error-mode", agent.MockErrorNone, "none, timeout, 4xx or 5xx")
	fl.Float64Var(&f.errorRate, "error-rate", 0, "the share of tasks that fail in --error-mode, 0 to 1 (default 1 when --error-mode is set)")
	return cmd
}

// options checks the flags (exit 2 on a bad one).
func (f *mockAgentFlags) options(cmd *cobra.Command) (agent.MockOptions, error) {
	if f.port < 0 || f.port > 65535 {
		return agent.MockOptions{}, fail(ExitInvalid, "--port %d: want 0 to 65535", f.port)
	}
	rate := f.errorRate
	if !cmd.Flags().Changed("error-rate") && f.errorMode != agent.MockErrorNone {
		rate = 1
	}
	o := agent.MockOptions{Name: f.name, Delay: f.delay, ErrorMode: f.errorMode, ErrorRate: rate}
	if _, err := agent.NewMockAgent(o); err != nil {
		return o, fail(ExitInvalid, "%v", err)
	}
	return o, nil
}

// runMockAgent serves a mock agent on ln until ctx is done: the function
// the command and its tests share.
func runMockAgent(ctx context.Context, io Stdio, ln net.Listener, o agent.MockOptions) error {
	o.Logger = slog.New(slog.NewTextHandler(io.Err, nil))
	line, _ := json.Marshal(map[string]string{"name": o.Name, "url": "http://" + ln.Addr().String()})
	if _, err := fmt.Fprintf(io.Out, "%s\n", line); err != nil {
		ln.Close()
		return err
	}
	err := agent.ServeMock(ctx, ln, o)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fail(ExitFailed, "mock agent: %v", err)
	}
	return nil
}
