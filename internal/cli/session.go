package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/coder/websocket"
	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/session"
)

func newSessionCmd(io Stdio) *cobra.Command {
	var stdio bool
	var cfgPath, data, url string
	cmd := &cobra.Command{
		Use:   "session --stdio [--data DIR | --url ws://HOST/api/v1/session]",
		Short: "Serve one A2E session on stdin/stdout, for an agent host that spawns sluice",
		Long: `Serve one A2E session (NDJSON, one message per line) on stdin and stdout. The
agent's handshake/req carries a sluice API key. Without --url the tools run in an
embedded sluice on the data directory (which must not be in use by a server); with
--url the session is relayed to a running server's WebSocket endpoint.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !stdio {
				return fail(ExitInvalid, "say --stdio (or use `sluice session call`)")
			}
			if url != "" {
				if err := checkSessionURL("--url", url); err != nil {
					return err
				}
				return relaySession(cmd.Context(), io, url)
			}
			return embeddedSession(cmd.Context(), io, cfgPath, data)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&stdio, "stdio", false, "serve the session on stdin/stdout")
	fl.StringVar(&cfgPath, "config", "", "YAML configuration file (embedded mode)")
	fl.StringVar(&data, "data", "", "data directory (embedded mode; default ./sluice-data)")
	fl.StringVar(&url, "url", "", "relay to this server's session endpoint (ws://HOST:PORT/api/v1/session)")
	cmd.AddCommand(newSessionCallCmd(io))
	return cmd
}

// embeddedSession serves the session with a sluice of its own; logs go to stderr.
func embeddedSession(ctx context.Context, io Stdio, cfgPath, data string) error {
	cfg, err := config.Load(config.Options{Path: cfgPath})
	if err != nil {
		return fail(ExitInvalid, "%v", err)
	}
	app, closeApp, err := openEmbedded(ctx, io, cfg, data, gateway.Options{})
	if err != nil {
		return err
	}
	defer closeApp()
	if app.AdminKey != "" {
		fmt.Fprintf(io.Err, "admin key: %s\n", app.AdminKey)
	}
	app.Server.ServeSession(ctx, gateway.NewStreamConn(io.In, io.Out, nil, 0), "stdio")
	return nil
}

func newSessionCallCmd(io Stdio) *cobra.Command {
	var url, key, args string
	var stream bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "call TOOL [--args JSON|@FILE] [--url ws://HOST/api/v1/session] [--key KEY|@FILE|env:VAR]",
		Short: "Call one tool through a session and print its answer (tool/event lines on stderr with --stream)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, a []string) error {
			source := "--url"
			if url == "" {
				url, source = os.Getenv("SLUICE_SESSION_URL"), "SLUICE_SESSION_URL"
			}
			if url == "" {
				url = "ws://127.0.0.1:8080/api/v1/session"
			}
			if err := checkSessionURL(source, url); err != nil {
				return err
			}
			k := os.Getenv("SLUICE_API_KEY")
			if key != "" {
				v, err := readValue("--key", key, 4<<10)
				if err != nil {
					return err
				}
				k = v
			}
			if k == "" {
				return fail(ExitInvalid, "no API key: set SLUICE_API_KEY or pass --key")
			}
			var arguments json.RawMessage
			if args != "" {
				v, err := readValue("--args", args, 16<<20)
				if err != nil {
					return err
				}
				var obj map[string]any
				if err := json.Unmarshal([]byte(v), &obj); err != nil {
					return fail(ExitInvalid, "--args must be a JSON object: %v", err)
				}
				arguments = json.RawMessage(v)
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			ws, _, err := websocket.Dial(ctx, url, nil)
			if err != nil {
				return fail(ExitFailed, "connect to %s: %v", url, err)
			}
			ws.SetReadLimit(16 << 20)
			nc := websocket.NetConn(context.WithoutCancel(ctx), ws, websocket.MessageText)
			c, err := session.Connect(ctx, nc, nc, session.ClientOptions{AgentID: "sluice-cli", AuthToken: k, Caps: []string{session.CapTools},
				OnEvent: func(m session.Message) {
					if ev, ok := m.(*session.ToolEvent); ok && stream {
						b, _ := json.Marshal(ev)
						fmt.Fprintln(io.Err, string(b))
					}
				}})
			if err != nil {
				return fail(ExitFailed, "%v", err)
			}
			defer c.Close()
			resp, err := c.CallTool(ctx, &session.ToolCallReq{ToolName: a[0], Arguments: arguments, Streaming: stream})
			if err != nil {
				return fail(ExitFailed, "%v", err)
			}
			if err := writeJSON(io.Out, resp.Data); err != nil {
				return err
			}
			if !resp.Data.Success {
				return silent(ExitFailed)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&url, "url", "", "the server's session endpoint (default $SLUICE_SESSION_URL, else ws://127.0.0.1:8080/api/v1/session)")
	fl.StringVar(&key, "key", "", "API key, @FILE or env:VAR (default $SLUICE_API_KEY)")
	fl.StringVar(&args, "args", "", "the tool's arguments: a JSON object, or @FILE")
	fl.BoolVar(&stream, "stream", false, "ask for tool/event messages and print them on stderr")
	fl.DurationVar(&timeout, "timeout", 0, "give up after this long")
	return cmd
}
