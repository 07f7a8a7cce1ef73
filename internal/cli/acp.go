package cli

import (
	"context"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/acpagent"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

func newACPCmd(io Stdio) *cobra.Command {
	var onStdio bool
	var cfgPath, data, url, target string
	cmd := &cobra.Command{
		Use:   "acp --stdio --agent NAME|cap:NS/ID[@VERSION]|flow:FILE [--data DIR | --url http://HOST:PORT]",
		Short: "Serve an agent or capability to an editor that spawns sluice (Agent Client Protocol, stdio)",
		Long: `Be an Agent Client Protocol agent on stdin and stdout for an editor (Zed, a
JetBrains IDE, Neovim…) as the account of the key in SLUICE_API_KEY. Each prompt
goes to --agent through sluice's policy (the account's grants, rate limits,
audit): an agent NAME gets it through agent.invoke (its text streams back), a
capability cap:NS/ID[@VERSION] runs with it as its inputs (a decision the run
waits for is asked in the editor as a permission request), and an agent
workflow flow:FILE (the workflow document in FILE) runs with it as its input,
each step shown as a tool call.

Without --url sluice runs embedded on the data directory (which must not be in
use by a server); with --url every call goes to that server's /api/v1/e2a.
A key the server refuses ends the command (exit 2) with the reason on stderr.
Only ACP messages go to stdout; logs go to stderr. docs/protocols/acp.md says
how to configure an editor.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !onStdio {
				return fail(ExitInvalid, "say --stdio (an editor spawns sluice acp and talks on its stdin and stdout)")
			}
			if target == "" {
				return fail(ExitInvalid, "--agent is required: the agent (NAME), capability (cap:NS/ID) or agent workflow (flow:FILE) prompts go to")
			}
			tgt, err := acpagent.ParseTarget(target)
			if err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			key := os.Getenv("SLUICE_API_KEY")
			if key == "" {
				return fail(ExitInvalid, "no API key: set SLUICE_API_KEY")
			}
			cfg, err := config.Load(config.Options{Path: cfgPath})
			if err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			o := acpagent.Options{Target: tgt, Version: version(), Logger: newLogger(io, cfg)}
			// An editor that writes its requests and closes stdin still
			// reads every answer, as an MCP host does.
			std := newRPCStdio(cmd.Context(), io.In, io.Out)
			if url != "" {
				relay, err := openE2ARelay(cmd.Context(), url, key)
				if err != nil {
					return err
				}
				o.Caller = relay
				return acpagent.Serve(cmd.Context(), std, std, o)
			}
			app, closeApp, err := openEmbedded(cmd.Context(), io, cfg, data, gateway.Options{})
			if err != nil {
				return err
			}
			defer closeApp()
			conn, err := app.Server.OpenE2A(cmd.Context(), key, "acp")
			if err != nil {
				return keyFailure(err)
			}
			o.Caller = conn
			return acpagent.Serve(cmd.Context(), std, std, o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&onStdio, "stdio", false, "speak ACP on stdin/stdout")
	fl.StringVar(&target, "agent", "", "where prompts go: an agent NAME, cap:NS/ID[@VERSION] for a capability, flow:FILE for an agent workflow")
	fl.StringVar(&cfgPath, "config", "", "YAML configuration file (embedded mode; logging in both)")
	fl.StringVar(&data, "data", "", "data directory (embedded mode; default ./sluice-data)")
	fl.StringVar(&url, "url", "", "relay every call to this server (http://HOST:PORT; its /api/v1/e2a)")
	return cmd
}

// openEmbedded opens a sluice of the command's own on the data directory
// (`sluice mcp --stdio`, `sluice acp --stdio` without --url, `sluice
// session`), with tracing as cfg says, as serve has it; closeApp closes the
// sluice, then flushes the spans left.
func openEmbedded(ctx context.Context, io Stdio, cfg *config.Config, data string, opt gateway.Options) (app *gateway.App, closeApp func(), err error) {
	if data != "" {
		cfg.DataDir = data
	}
	opt.Logger = newLogger(io, cfg)
	flushTraces, err := startTracing(ctx, cfg, "gateway", opt.Logger)
	if err != nil {
		return nil, nil, err
	}
	app, err = gateway.Open(ctx, cfg, opt)
	if err != nil {
		flushTraces()
		return nil, nil, startupFailure(err)
	}
	return app, func() {
		_ = app.Close()
		flushTraces()
	}, nil
}

// keyFailure is the command's end when the key in SLUICE_API_KEY is
// refused (exit 2, the reason on stderr), or another failure (exit 1).
func keyFailure(err error) error {
	if fault.KindOf(err) == fault.Unauthenticated {
		return fail(ExitInvalid, "SLUICE_API_KEY: %s", fault.From(err).Message)
	}
	return fail(ExitFailed, "%v", err)
}

// e2aRelay makes E2A calls on a server's /api/v1/e2a: one POST a call, its
// frames read as they stream. Cancelling a call's context ends its request,
// which cancels the call on the server.
type e2aRelay struct {
	base string
	c    *client.Client
}

// openE2ARelay checks the key with one call (account.capabilities) before
// any ACP message, so a wrong key ends the command as it does embedded.
func openE2ARelay(ctx context.Context, url, key string) (*e2aRelay, error) {
	base := strings.TrimSuffix(strings.TrimRight(url, "/"), "/api/v1/e2a")
	// No timeout: a call lasts as long as the agent works; the editor cancels it.
	r := &e2aRelay{base: base, c: client.New(base, key, &http.Client{})}
	env := e2a.NewEnvelope()
	env.RequestID = e2a.NewUUID()
	env.Method = "account.capabilities"
	env.Channel = "acp"
	var final *e2a.Response
	err := r.Call(ctx, env, e2a.SinkFunc(func(f *e2a.Response) error {
		if f.IsFinal {
			final = f
		}
		return nil
	}))
	if err != nil {
		return nil, keyFailure(err)
	}
	if final.Kind == e2a.KindError {
		code, _ := final.Body["code"].(string)
		msg, _ := final.Body["message"].(string)
		if code == fault.Unauthenticated.String() {
			return nil, fail(ExitInvalid, "SLUICE_API_KEY: sluice at %s refused the key: %s", base, msg)
		}
		return nil, fail(ExitFailed, "sluice at %s: %s", base, msg)
	}
	return r, nil
}

func (r *e2aRelay) Call(ctx context.Context, env *e2a.Envelope, sink e2a.FrameSink) error {
	a, err := r.c.PostE2A(ctx, env, sink.WriteFrame)
	if a.Status == 0 {
		return fault.New(fault.Unavailable, "%v", reachError(r.base, err))
	}
	raw, final := a.First, a.Final
	if err != nil {
		return fault.New(fault.Unavailable, "sluice at %s: %v", r.base, err)
	}
	if !final {
		msg := agenthttp.ErrorMessage(raw, 0)
		if msg == "" {
			msg = "no final frame"
		}
		kind := fault.Unavailable
		if a.Status == http.StatusUnauthorized {
			kind = fault.Unauthenticated
		}
		return fault.New(kind, "sluice at %s answered HTTP %d: %s", r.base, a.Status, msg)
	}
	return nil
}
