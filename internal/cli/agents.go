package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/urlpath"
	"github.com/sluicehq/sluice/protocol/agenthttp"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// agentsPath is the admin API's agent registry.
const agentsPath = "/api/v1/admin/agents"

func newAgentsCmd(io Stdio) *cobra.Command {
	var af adminFlags
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "Manage and call HTTP task agents (register, list, rm through the admin API; invoke)",
		Long: `The registry of HTTP task agents (docs/protocols/agent-http.md). register, list
and rm use the admin API with the admin key ($SLUICE_ADMIN_KEY or --admin-key);
invoke calls an agent through the server with an account key
($SLUICE_API_KEY or --key).`,
	}
	// The admin flags (--url, --admin-key) go on the admin commands only:
	// invoke's --url and --key name the server and an account key.
	for _, sub := range []*cobra.Command{newAgentsRegisterCmd(io, &af), newAgentsListCmd(io, &af), newAgentsRmCmd(io, &af)} {
		af.register(sub)
		cmd.AddCommand(sub)
	}
	cmd.AddCommand(newAgentsInvokeCmd(io))
	cmd.AddCommand(newAgentsRunWorkflowCmd(io))
	cmd.AddCommand(newAgentsCancelRunCmd(io))
	cmd.AddCommand(newAgentsRunsCmd(io))
	return cmd
}

type registerFlags struct {
	file                                            string
	agentURL                                        string
	bearer, bearerRef, apiKey, apiKeyRef, keyHeader string
	headers, headerRefs                             []string
	timeout, initialDelay, maxDelay                 time.Duration
	maxRetries                                      int
	multiplier                                      float64
}

func newAgentsRegisterCmd(io Stdio, af *adminFlags) *cobra.Command {
	var f registerFlags
	cmd := &cobra.Command{
		Use:   "register NAME --agent-url URL [auth flags] [retry flags] | register --file ENTRY.json",
		Short: "Register an agent (or replace its entry); secrets go into the server's vault",
		Long: `Register an HTTP task agent with the server (POST /api/v1/admin/agents) and print
the stored entry, whose secrets show as credentialRefs: the server moves a
token, key or header value given here into its vault and keeps only the
reference. Registering a name again replaces its entry.

Auth (at most one kind): --bearer-token or --bearer-token-ref ID; --api-key or
--api-key-ref ID, with --api-key-header (default X-API-Key); --header
NAME=VALUE and --header-ref NAME=ID (repeatable). Secret values take @FILE and
env:VAR so they need not sit on the command line.

--file reads a whole entry instead ({"name", "url", "protocol", "auth_config",
"timeout", "retry_config"}, or for an ACP agent {"name", "protocol": "acp", "acp":
{"command", "args", "cwd", "fs", "permission"}, ...}; - for stdin).

Exit 0 when registered, 1 when the server refused, 2 on invalid input.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := f.entry(cmd, io, args)
			if err != nil {
				return err
			}
			body, err := agenthttp.EncodeRegistration(e)
			if err != nil {
				return fail(ExitInvalid, "the entry cannot be encoded")
			}
			c, err := af.client()
			if err != nil {
				return err
			}
			var out json.RawMessage
			if err := c.Do(cmd.Context(), http.MethodPost, agentsPath, json.RawMessage(body), &out); err != nil {
				return serverError(err)
			}
			return writeRaw(io.Out, out)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.file, "file", "", "read the whole entry from a JSON file (- for stdin)")
	fl.StringVar(&f.agentURL, "agent-url", "", "the agent's endpoint, e.g. http://research-agent:8080 (--url is the sluice server's)")
	fl.StringVar(&f.bearer, "bearer-token", "", "bearer token, @FILE or env:VAR (sent as Authorization: Bearer ...)")
	fl.StringVar(&f.bearerRef, "bearer-token-ref", "", "bearer token already in the vault: its credential id")
	fl.StringVar(&f.apiKey, "api-key", "", "API key, @FILE or env:VAR")
	fl.StringVar(&f.apiKeyRef, "api-key-ref", "", "API key already in the vault: its credential id")
	fl.StringVar(&f.keyHeader, "api-key-header", "", "the header of the API key (default X-API-Key)")
	fl.StringArrayVar(&f.headers, "header", nil, "a header NAME=VALUE (VALUE may be @FILE or env:VAR); repeatable")
	fl.StringArrayVar(&f.headerRefs, "header-ref", nil, "a header NAME=ID whose value is vault credential ID; repeatable")
	fl.DurationVar(&f.timeout, "timeout", agenthttp.DefaultTimeout, "how long one attempt may take")
	fl.IntVar(&f.maxRetries, "max-retries", agenthttp.DefaultMaxRetries, "retries after the first attempt")
	fl.DurationVar(&f.initialDelay, "initial-delay", agenthttp.DefaultInitialDelay, "the wait before the first retry")
	fl.DurationVar(&f.maxDelay, "max-delay", agenthttp.DefaultMaxDelay, "the longest wait between retries")
	fl.Float64Var(&f.multiplier, "backoff-multiplier", agenthttp.DefaultBackoffMultiplier, "how much each wait grows")
	return cmd
}

// entryFlags are the flags that build an entry, which --file excludes.
var entryFlags = []string{"agent-url", "bearer-token", "bearer-token-ref", "api-key", "api-key-ref", "api-key-header",
	"header", "header-ref", "timeout", "max-retries", "initial-delay", "max-delay", "backoff-multiplier"}

// entry builds the entry from --file or the flags and validates it here,
// so a typo exits 2 before anything is sent.
func (f *registerFlags) entry(cmd *cobra.Command, io Stdio, args []string) (agenthttp.Entry, error) {
	if f.file != "" {
		for _, n := range entryFlags {
			if cmd.Flags().Changed(n) {
				return agenthttp.Entry{}, fail(ExitInvalid, "--file and --%s exclude each other", n)
			}
		}
		data, err := readEntryFile(f.file, io.In)
		if err != nil {
			return agenthttp.Entry{}, err
		}
		e, err := agenthttp.DecodeEntry(data, agenthttp.Limits{})
		if err != nil {
			return agenthttp.Entry{}, fail(ExitInvalid, "%s: %v", f.file, err)
		}
		if len(args) == 1 && args[0] != e.Name {
			return agenthttp.Entry{}, fail(ExitInvalid, "NAME %q differs from the file's name %q", args[0], e.Name)
		}
		return e, nil
	}
	if len(args) != 1 {
		return agenthttp.Entry{}, fail(ExitInvalid, "register needs NAME and --agent-url, or --file")
	}
	if f.agentURL == "" {
		return agenthttp.Entry{}, fail(ExitInvalid, "--agent-url is required: the agent's endpoint")
	}
	e := agenthttp.NewEntry(args[0], f.agentURL)
	e.Timeout = f.timeout
	e.Retry = agenthttp.RetryConfig{MaxRetries: f.maxRetries, InitialDelay: f.initialDelay, MaxDelay: f.maxDelay, BackoffMultiplier: f.multiplier}
	auth, err := f.auth()
	if err != nil {
		return agenthttp.Entry{}, err
	}
	e.Auth = auth
	if err := e.Validate(); err != nil {
		return agenthttp.Entry{}, fail(ExitInvalid, "%v", err)
	}
	return e, nil
}

// auth builds the auth_config of the flags (nil: none).
func (f *registerFlags) auth() (*agenthttp.AuthConfig, error) {
	kinds := 0
	for _, set := range []bool{f.bearer != "" || f.bearerRef != "", f.apiKey != "" || f.apiKeyRef != "" || f.keyHeader != "",
		len(f.headers)+len(f.headerRefs) > 0} {
		if set {
			kinds++
		}
	}
	if kinds > 1 {
		return nil, fail(ExitInvalid, "give one kind of auth: bearer token, API key or headers")
	}
	secret := func(flag, value, ref string) (agenthttp.Secret, error) {
		switch {
		case value != "" && ref != "":
			return agenthttp.Secret{}, fail(ExitInvalid, "--%s and --%s-ref exclude each other", flag, flag)
		case ref != "":
			return agenthttp.SecretRef(ref), nil
		}
		v, err := readValue("--"+flag, value, agenthttp.MaxSecretBytes)
		return agenthttp.PlainSecret(v), err
	}
	switch {
	case f.bearer != "" || f.bearerRef != "":
		s, err := secret("bearer-token", f.bearer, f.bearerRef)
		return &agenthttp.AuthConfig{Type: agenthttp.AuthBearer, Token: s}, err
	case f.apiKey != "" || f.apiKeyRef != "":
		s, err := secret("api-key", f.apiKey, f.apiKeyRef)
		return &agenthttp.AuthConfig{Type: agenthttp.AuthAPIKey, Key: s, Header: f.keyHeader}, err
	case f.keyHeader != "":
		return nil, fail(ExitInvalid, "--api-key-header needs --api-key or --api-key-ref")
	case len(f.headers)+len(f.headerRefs) > 0:
		a := &agenthttp.AuthConfig{Type: agenthttp.AuthHeaders, Headers: map[string]agenthttp.Secret{}}
		for _, h := range f.headers {
			name, v, ok := strings.Cut(h, "=")
			if !ok || name == "" || v == "" {
				return nil, fail(ExitInvalid, "--header wants NAME=VALUE")
			}
			val, err := readValue("--header "+name, v, agenthttp.MaxSecretBytes)
			if err != nil {
				return nil, err
			}
			a.Headers[name] = agenthttp.PlainSecret(val)
		}
		for _, h := range f.headerRefs {
			name, id, ok := strings.Cut(h, "=")
			if !ok || name == "" || id == "" {
				return nil, fail(ExitInvalid, "--header-ref wants NAME=ID, got %q", h)
			}
			if _, dup := a.Headers[name]; dup {
				return nil, fail(ExitInvalid, "header %s is given twice", name)
			}
			a.Headers[name] = agenthttp.SecretRef(id)
		}
		return a, nil
	}
	return nil, nil
}

func readEntryFile(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return nil, fail(ExitInvalid, "cannot read the entry: %v", err)
		}
		defer fh.Close()
		r = fh
	}
	b, err := io.ReadAll(io.LimitReader(r, agenthttp.DefaultMaxEntryBytes+1))
	if err != nil {
		return nil, fail(ExitInvalid, "cannot read the entry: %v", err)
	}
	if len(b) > agenthttp.DefaultMaxEntryBytes {
		return nil, fail(ExitInvalid, "the entry is larger than %d bytes", agenthttp.DefaultMaxEntryBytes)
	}
	return b, nil
}

func newAgentsListCmd(io Stdio, af *adminFlags) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use: "list", Short: "List the registered agents (secrets as credentialRefs)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, c, err := io.start(output, af.client)
			if err != nil {
				return err
			}
			var out struct {
				Agents []json.RawMessage `json:"agents"`
			}
			if err := c.Do(cmd.Context(), http.MethodGet, agentsPath, nil, &out); err != nil {
				return serverError(err)
			}
			if out.Agents == nil {
				out.Agents = []json.RawMessage{}
			}
			return io.render(format, out.Agents, "name", "url", "timeout")
		},
	}
	addOutputFlag(cmd, &output)
	return cmd
}

func newAgentsRmCmd(io Stdio, af *adminFlags) *cobra.Command {
	return &cobra.Command{
		Use: "rm NAME", Short: "Remove an agent (and the vault entries the server made for it)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := agenthttp.CheckName("agent", args[0]); err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			c, err := af.client()
			if err != nil {
				return err
			}
			if err := c.Do(cmd.Context(), http.MethodDelete, agentsPath+"/"+urlpath.Segment(args[0]), nil, nil); err != nil {
				return serverError(err)
			}
			return writeJSON(io.Out, map[string]string{"removed": args[0]})
		},
	}
}

type invokeFlags struct {
	input, taskID, correlationID, url, key string
}

func newAgentsInvokeCmd(io Stdio) *cobra.Command {
	var f invokeFlags
	cmd := &cobra.Command{
		Use:   "invoke NAME --input JSON",
		Short: "Send a task to an agent through the server and print its output",
		Long: `Send a task to a registered agent through the server (POST /api/v1/e2a with
method agent.invoke) and print the agent's output as JSON. The server applies
the account's agents grant, the agent's timeout, retries and circuit breaker.
Reads SLUICE_URL and SLUICE_API_KEY (--url, --key).

Exit 0 with the output, 1 when the agent or the server refused or failed (the
reason on stderr), 2 for bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return agentsInvoke(cmd.Context(), io, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "{}", "the task's input: a JSON object or @FILE")
	fl.StringVar(&f.taskID, "task-id", "", "the task's id, its idempotency key (default: the server makes one)")
	fl.StringVar(&f.correlationID, "correlation-id", "", "sent to the agent as X-Correlation-ID")
	fl.StringVar(&f.url, "url", "", "server URL (default $SLUICE_URL, else http://127.0.0.1:8080)")
	fl.StringVar(&f.key, "key", "", "API key, @FILE or env:VAR (default $SLUICE_API_KEY)")
	return cmd
}

// agentsInvoke posts the envelope and reads the NDJSON frames back.
func agentsInvoke(ctx context.Context, io Stdio, name string, f invokeFlags) error {
	if err := agenthttp.CheckName("agent", name); err != nil {
		return fail(ExitInvalid, "%v", err)
	}
	in, err := readValue("--input", f.input, 8<<20)
	if err != nil {
		return err
	}
	var input map[string]any
	if err := json.Unmarshal([]byte(in), &input); err != nil || input == nil {
		return fail(ExitInvalid, "--input is not a JSON object (an agent's input is an object)")
	}
	if f.taskID != "" {
		if err := agenthttp.CheckTaskID("--task-id", "task_id", f.taskID); err != nil {
			return fail(ExitInvalid, "%v", err)
		}
	}
	if f.correlationID != "" {
		if err := agenthttp.CheckTaskID("--correlation-id", "correlation_id", f.correlationID); err != nil {
			return fail(ExitInvalid, "%v", err)
		}
	}
	base, key, err := accountTarget(f.url, f.key)
	if err != nil {
		return err
	}
	env := e2a.NewEnvelope()
	env.RequestID = e2a.NewUUID()
	env.Method = e2a.MethodAgentInvoke
	env.Channel = "cli"
	env.CorrelationID = f.correlationID
	env.Params = map[string]any{"agent": name, "input": input}
	if f.taskID != "" {
		env.Params["task_id"] = f.taskID
	}
	c := client.New(base, key, &http.Client{Timeout: 10 * time.Minute})
	var final *e2a.Response
	a, err := c.PostE2A(ctx, env, func(f *e2a.Response) error { final = f; return nil })
	if a.Status == 0 {
		return fail(ExitFailed, "%v", reachError(base, err))
	}
	if err != nil {
		return fail(ExitFailed, "%s", err)
	}
	if !a.Final {
		msg := agenthttp.ErrorMessage(a.First, 0)
		if msg == "" {
			msg = "no answer"
		}
		return fail(ExitFailed, "HTTP %d: %s", a.Status, msg)
	}
	if final.Kind != e2a.KindComplete {
		msg, _ := final.Body["message"].(string)
		code, _ := final.Body["code"].(string)
		if msg == "" {
			msg = "the call failed"
		}
		if code != "" {
			msg = code + ": " + msg
		}
		return fail(ExitFailed, "agent %s: %s", name, msg)
	}
	return writeJSON(io.Out, final.Body["result"])
}

// accountTarget is the server URL and account key of --url/--key or
// SLUICE_URL/SLUICE_API_KEY.
func accountTarget(u, key string) (string, string, error) {
	if u == "" {
		u = os.Getenv("SLUICE_URL")
	}
	if u == "" {
		u = "http://127.0.0.1:8080"
	}
	k := os.Getenv("SLUICE_API_KEY")
	if key != "" {
		v, err := readValue("--key", key, 4<<10)
		if err != nil {
			return "", "", err
		}
		k = v
	}
	if k == "" {
		return "", "", fail(ExitInvalid, "no API key: set SLUICE_API_KEY or pass --key")
	}
	return strings.TrimRight(u, "/"), k, nil
}

// writeRaw prints a JSON answer indented.
func writeRaw(w io.Writer, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		_, err = w.Write(append(raw, '\n'))
		return err
	}
	return writeJSON(w, v)
}
