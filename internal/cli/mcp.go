package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/gateway"
)

func newMCPCmd(io Stdio) *cobra.Command {
	var onStdio bool
	var cfgPath, data, url string
	cmd := &cobra.Command{
		Use:   "mcp --stdio [--data DIR | --url http://HOST/mcp]",
		Short: "Serve the account's tools to an MCP host that spawns sluice (stdio)",
		Long: `Serve one MCP session on stdin and stdout (newline-delimited JSON-RPC) for the
account of the key in SLUICE_API_KEY: its tools are what tool/list gives it, and
every call runs under its grants, limits, audit and vault. Without --url the tools
run in an embedded sluice on the data directory (which must not be in use by a
server); with --url the session is relayed to a running server's /mcp endpoint.
Only MCP messages go to stdout; logs go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !onStdio {
				return fail(ExitInvalid, "say --stdio (for HTTP, a host connects to a server's /mcp)")
			}
			key := os.Getenv("SLUICE_API_KEY")
			if key == "" {
				return fail(ExitInvalid, "no API key: set SLUICE_API_KEY")
			}
			std := newRPCStdio(cmd.Context(), io.In, io.Out)
			t := &mcp.IOTransport{Reader: std, Writer: std}
			if url != "" {
				return relayMCP(cmd.Context(), t, url, key)
			}
			return embeddedMCP(cmd.Context(), io, t, cfgPath, data, key)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&onStdio, "stdio", false, "serve the MCP session on stdin/stdout")
	fl.StringVar(&cfgPath, "config", "", "YAML configuration file (embedded mode)")
	fl.StringVar(&data, "data", "", "data directory (embedded mode; default ./sluice-data)")
	fl.StringVar(&url, "url", "", "relay to this server's MCP endpoint (http://HOST:PORT/mcp)")
	return cmd
}

// embeddedMCP serves the session with a sluice of its own.
func embeddedMCP(ctx context.Context, io Stdio, t mcp.Transport, cfgPath, data, key string) error {
	cfg, err := config.Load(config.Options{Path: cfgPath})
	if err != nil {
		return fail(ExitInvalid, "%v", err)
	}
	app, closeApp, err := openEmbedded(ctx, io, cfg, data, gateway.Options{MCP: gateway.MCPConfig{ServerVersion: version()}})
	if err != nil {
		return err
	}
	defer closeApp()
	if err := app.Server.ServeMCP(ctx, t, key); err != nil {
		return keyFailure(err)
	}
	return nil
}

// relayMCP copies MCP messages between stdio and the server's /mcp (the
// go-sdk's Streamable HTTP client, with the key as a bearer token). A
// request the server refuses (a wrong key: 401) is answered on stdio with
// the server's JSON-RPC error.
func relayMCP(ctx context.Context, local mcp.Transport, url, key string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The MCP SDK's transport, not the client/ package: this relays MCP's
	// streamable HTTP, which is not the REST API the client calls.
	bt := &bearerTransport{key: key, next: http.DefaultTransport}
	remote, err := (&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bt}}).Connect(ctx)
	if err != nil {
		return fail(ExitFailed, "connect to %s: %v", url, err)
	}
	defer remote.Close()
	host, err := local.Connect(ctx)
	if err != nil {
		return fail(ExitFailed, "stdio: %v", err)
	}
	defer host.Close()
	done := make(chan struct{}, 2)
	go func() { // host -> server
		defer func() { done <- struct{}{} }()
		for {
			msg, err := host.Read(ctx)
			if err != nil {
				return
			}
			if err := remote.Write(ctx, msg); err != nil {
				req, isReq := msg.(*jsonrpc.Request)
				if !isReq || !req.IsCall() {
					continue
				}
				var wire *jsonrpc.Error
				switch {
				case bt.refusedKey.Load():
					wire = &jsonrpc.Error{Code: codeUnauthenticated, Message: "sluice at " + url + " refused the key in SLUICE_API_KEY"}
				case !errors.As(err, &wire):
					wire = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("sluice at %s: %v", url, err)}
				}
				if host.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: wire}) != nil {
					return
				}
			}
		}
	}()
	go func() { // server -> host
		defer func() { done <- struct{}{} }()
		for {
			msg, err := remote.Read(ctx)
			if err != nil {
				return
			}
			if host.Write(ctx, msg) != nil {
				return
			}
		}
	}()
	<-done
	return nil
}

// codeUnauthenticated is the JSON-RPC code of a refused key (fault's table).
var codeUnauthenticated = int64(fault.Unauthenticated.JSONRPCCode())

// bearerTransport sends the API key on every request, and notes when the
// server refuses it (401: the go-sdk's client reports only the status).
type bearerTransport struct {
	key        string
	next       http.RoundTripper
	refusedKey atomic.Bool
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	resp, err := b.next.RoundTrip(r)
	if err == nil {
		b.refusedKey.Store(resp.StatusCode == http.StatusUnauthorized)
	}
	return resp, err
}
