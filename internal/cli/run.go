package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/storage"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/internal/workflow"
)

// localAccount is the account `sluice run` acts as: the person at the terminal.
const localAccount = "local"

type runFlags struct {
	input       string
	allowEgress []string
	credentials []string
	credTypes   []string
	timeout     time.Duration
	progress    bool
	dataDir     string
}

func newRunCmd(io Stdio) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run FILE|-",
		Short: "Validate and execute an A2E workflow, printing the execute response JSON",
		Long: `Validate and execute an A2E workflow (JSONL) locally and print the execute
response {"execution_id", "status", "results", "errors", "duration_ms"}.

Every operation and every public host may be used; loopback, private and
link-local addresses are refused unless allowed with --allow-egress. Only the
credentials given with --credential exist, and their values never appear in output.

Exit 0 on success, 1 when the workflow failed or partly failed, 2 when the
document or a flag is invalid or not permitted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd, io, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "", "the /input object: JSON or @FILE")
	fl.StringArrayVar(&f.allowEgress, "allow-egress", nil, "allow a loopback or private HOST[:PORT] (or CIDR); repeatable")
	fl.StringArrayVar(&f.credentials, "credential", nil, "a credential ID=VALUE, ID=@FILE or ID=env:VAR; repeatable")
	fl.StringArrayVar(&f.credTypes, "credential-type", nil, "a credential's type ID=TYPE (bearer-token is sent as \"Bearer <value>\"); repeatable")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "the whole execution's time budget")
	fl.BoolVar(&f.progress, "progress", false, "show live progress on stderr (default when stderr is a terminal)")
	fl.StringVar(&f.dataDir, "data", "sluice-data", "data directory for localStorage and file storage")
	return cmd
}

func run(cmd *cobra.Command, io Stdio, file string, f runFlags) error {
	if f.timeout <= 0 {
		return fail(ExitInvalid, "--timeout must be positive, got %s", f.timeout)
	}
	input, err := parseInput(f.input)
	if err != nil {
		return err
	}
	secrets, err := parseCredentials(f.credentials, f.credTypes)
	if err != nil {
		return err
	}
	pol := egress.Policy{AllowPrivate: f.allowEgress}
	if err := pol.Validate(); err != nil {
		return fail(ExitInvalid, "--allow-egress: %v", err)
	}
	doc, err := readDocument(file, io.In, maxDocumentBytes)
	if err != nil {
		return err
	}

	clk := clock.Real{}
	mem := storage.NewMemory(clk)
	ids := make([]string, 0, len(secrets))
	for id := range secrets {
		ids = append(ids, id)
	}
	runner := workflow.New(workflow.Config{PrivateAllowed: pol.Allows, Deps: op.Deps{
		Client: egress.NewClient(pol),
		Vault:  vault.NewMemory(secrets),
		Storage: &storage.Mux{
			Local:   &storage.Files{Dir: filepath.Join(f.dataDir, "local")},
			Session: mem,
			File:    &storage.Files{Dir: filepath.Join(f.dataDir, "files")},
		},
		Cache:  cache.New(cache.Config{Clock: clk}),
		Clock:  clk,
		Limits: op.DefaultLimits(),
	}})
	account := workflow.Account{ID: localAccount, Permissions: policy.Permissions{
		Operations:  []string{"*"},
		Hosts:       []string{"*"}, // the private-address gate still applies at dial time
		Credentials: ids,
	}}

	var onEvent func(engine.Event)
	if f.progress || terminal(io) {
		onEvent = newProgress(io.Err).event
	}
	res, report := runner.Execute(cmd.Context(), doc, account, workflow.Options{
		Input: input, MaxExecutionTime: f.timeout, OnEvent: onEvent,
		OnWarnings: func(ws []fault.Object) {
			for _, w := range ws {
				fmt.Fprintf(io.Err, "warning: line %d %s %s: %s\n", w.Line, w.OperationID, w.Path, w.Message)
			}
		},
	})
	if report != nil {
		if err := writeJSON(io.Out, report); err != nil {
			return err
		}
		return silent(ExitInvalid)
	}
	if err := writeJSON(io.Out, res); err != nil {
		return err
	}
	if res.Status != engine.StatusSuccess {
		return silent(ExitFailed)
	}
	return nil
}

func terminal(io Stdio) bool {
	if io.ErrIsTerminal != nil {
		return *io.ErrIsTerminal
	}
	return isTerminal(io.Err)
}

// parseCredentials reads --credential ID=VALUE|@FILE|env:VAR and --credential-type
// ID=TYPE. Errors name the flag and the id, never the value.
func parseCredentials(creds, types []string) (map[string]op.Secret, error) {
	out := map[string]op.Secret{}
	for _, c := range creds {
		id, v, ok := strings.Cut(c, "=")
		if !ok || id == "" {
			return nil, fail(ExitInvalid, "--credential wants ID=VALUE, ID=@FILE or ID=env:VAR")
		}
		if _, dup := out[id]; dup {
			return nil, fail(ExitInvalid, "--credential %s is given twice", id)
		}
		val, err := readValue(fmt.Sprintf("--credential %s", id), v, 64<<10)
		if err != nil {
			return nil, err
		}
		if val == "" {
			return nil, fail(ExitInvalid, "--credential %s is empty", id)
		}
		out[id] = op.Secret{Value: val}
	}
	for _, t := range types {
		id, typ, ok := strings.Cut(t, "=")
		if !ok || id == "" || typ == "" {
			return nil, fail(ExitInvalid, "--credential-type wants ID=TYPE, got %q", t)
		}
		s, known := out[id]
		if !known {
			return nil, fail(ExitInvalid, "--credential-type %s names no --credential", id)
		}
		s.Type = typ
		out[id] = s
	}
	return out, nil
}
