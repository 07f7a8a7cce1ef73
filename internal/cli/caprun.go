package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/storage"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/a2s"
)

type capRunFlags struct {
	runFlags
	serviceCreds []string
	live         bool
}

func (f *capRunFlags) register(cmd *cobra.Command, withInput bool) {
	fl := cmd.Flags()
	if withInput {
		fl.StringVar(&f.input, "input", "", "the capability's inputs: a JSON object or @FILE")
	}
	fl.StringArrayVar(&f.allowEgress, "allow-egress", nil, "allow a loopback or private HOST[:PORT] (or CIDR); repeatable")
	fl.StringArrayVar(&f.credentials, "credential", nil, "a credential ID=VALUE, ID=@FILE or ID=env:VAR; an ID of the form HOST:FIELD is that service's FIELD; repeatable")
	fl.StringArrayVar(&f.credTypes, "credential-type", nil, "a credential's type ID=TYPE (bearer-token is sent as \"Bearer <value>\"); repeatable")
	fl.StringArrayVar(&f.serviceCreds, "service-credential", nil, "use credential ID as FIELD of service HOST: HOST:FIELD=ID (fields: access_token, api_key, client_id, client_secret); repeatable")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "the whole run's time budget")
}

func newCapRunCmd(io Stdio) *cobra.Command {
	var f capRunFlags
	cmd := &cobra.Command{
		Use:   "run FILE --input JSON",
		Short: "Run a capability document locally, printing its outputs and status as JSON",
		Long: `Run an A2S capability (YAML or JSON) locally and print {"run_id", "status",
"outputs", "tasks", "errors", "pending"}.

Every public host may be reached; loopback, private and link-local addresses are
refused unless allowed with --allow-egress. Secrets are never inputs: give them
with --credential and say which service field each is, by naming it HOST:FIELD
or with --service-credential HOST:FIELD=ID.

Exit 0 on success, 1 when the run failed, 2 when the document, its inputs or a
flag is invalid, 3 when the run waits for the agent's answer (the pending
prompt is printed).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return capRun(cmd, io, args[0], f) },
	}
	f.register(cmd, true)
	return cmd
}

func newCapTestCmd(io Stdio) *cobra.Command {
	var f capRunFlags
	cmd := &cobra.Command{
		Use:   "test FILE",
		Short: "Run every example of a capability document and compare the expected outputs",
		Long: `Run each entry of the document's examples: the task outputs it gives replace
running those tasks, and its expected outputs must equal the outputs. A request
task that would run without such a stub is a test error, unless --live (then it
runs for real, under the same egress and credential flags as sluice cap run).

Prints a PASS or FAIL line per example (when stderr is a terminal, a line there
as each example ends); exit 0 when all pass, 1 when one fails, 2 when the
document is invalid.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return capTest(cmd, io, args[0], f) },
	}
	f.register(cmd, false)
	cmd.Flags().BoolVar(&f.live, "live", false, "run request tasks that have no stub for real")
	return cmd
}

// loadCapability reads and lints a document; lint errors are printed and
// make it invalid (exit 2). Warnings go to stderr.
func loadCapability(io Stdio, file string) (*a2s.Document, error) {
	data, err := readDocument(file, io.In, 8<<20)
	if err != nil {
		return nil, err
	}
	doc, ds := a2s.LintBytes(data, a2s.Options{File: file, Format: a2s.FormatOf(file)})
	for _, d := range ds {
		fmt.Fprintln(io.Err, d.String())
	}
	if a2s.HasErrors(ds) || doc == nil {
		return nil, silent(ExitInvalid)
	}
	return doc, nil
}

// capEnvironment is the local run's operation environment and service
// credentials, from the flags.
func capEnvironment(f capRunFlags) (*op.Environment, map[string]map[string]string, error) {
	secrets, err := parseCredentials(f.credentials, f.credTypes)
	if err != nil {
		return nil, nil, err
	}
	pol := egress.Policy{AllowPrivate: f.allowEgress}
	if err := pol.Validate(); err != nil {
		return nil, nil, fail(ExitInvalid, "--allow-egress: %v", err)
	}
	services := map[string]map[string]string{}
	set := func(host, field, id string) {
		if services[host] == nil {
			services[host] = map[string]string{}
		}
		services[host][field] = id
	}
	ids := make([]string, 0, len(secrets))
	for id := range secrets {
		ids = append(ids, id)
		if host, field, ok := strings.Cut(id, ":"); ok && host != "" && field != "" {
			set(host, field, id)
		}
	}
	for _, sc := range f.serviceCreds {
		hf, id, ok := strings.Cut(sc, "=")
		host, field, ok2 := strings.Cut(hf, ":")
		if !ok || !ok2 || host == "" || field == "" || id == "" {
			return nil, nil, fail(ExitInvalid, "--service-credential wants HOST:FIELD=ID, got %q", sc)
		}
		if _, known := secrets[id]; !known {
			return nil, nil, fail(ExitInvalid, "--service-credential %s names no --credential", hf)
		}
		set(host, field, id)
	}
	sort.Strings(ids)
	clk := clock.Real{}
	env := op.NewEnvironment(&op.Deps{
		Client:      egress.NewClient(pol),
		Vault:       vault.NewMemory(secrets),
		Permissions: policy.Permissions{Operations: []string{"*"}, Hosts: []string{"*"}, Credentials: ids},
		Storage:     &storage.Mux{Local: storage.NewMemory(clk), Session: storage.NewMemory(clk)},
		Cache:       cache.New(cache.Config{Clock: clk}),
		Clock:       clk,
		Limits:      op.DefaultLimits(),
	}, op.Builtins()...)
	return env, services, nil
}

func capRun(cmd *cobra.Command, io Stdio, file string, f capRunFlags) error {
	if f.timeout <= 0 {
		return fail(ExitInvalid, "--timeout must be positive, got %s", f.timeout)
	}
	in, err := parseInput(f.input)
	if err != nil {
		return err
	}
	inputs, _ := in.(map[string]any)
	if in != nil && inputs == nil {
		return fail(ExitInvalid, "--input must be a JSON object")
	}
	doc, err := loadCapability(io, file)
	if err != nil {
		return err
	}
	env, services, err := capEnvironment(f)
	if err != nil {
		return err
	}
	eng := engine.New(engine.Options{Cache: env.Deps().Cache})
	c, err := capability.Compile(doc, capability.Options{Env: env, Account: localAccount, Credentials: services, Nested: eng})
	if err != nil {
		return fail(ExitInvalid, "%v", err)
	}
	if err := c.CheckInputs(inputs); err != nil {
		return fail(ExitInvalid, "%v", err)
	}
	r := capability.Run(cmd.Context(), eng, c, capability.RunOptions{Account: localAccount, Inputs: inputs, MaxTime: f.timeout})
	if err := writeJSON(io.Out, r); err != nil {
		return err
	}
	switch r.Status {
	case engine.StatusSuccess:
		return nil
	case engine.StatusWaiting:
		if r.Pending != nil && r.Pending.Prompt != "" {
			fmt.Fprintf(io.Err, "waiting for an answer to task %s:\n%s\n", r.Pending.Task, r.Pending.Prompt)
		}
		return silent(ExitWaiting)
	}
	return silent(ExitFailed)
}

func capTest(cmd *cobra.Command, io Stdio, file string, f capRunFlags) error {
	doc, err := loadCapability(io, file)
	if err != nil {
		return err
	}
	if len(doc.Examples) == 0 {
		return fail(ExitInvalid, "%s has no examples to run", file)
	}
	env, services, err := capEnvironment(f)
	if err != nil {
		return err
	}
	eng := engine.New(engine.Options{})
	// On a terminal, a line on stderr as each example ends: the PASS/FAIL
	// report on stdout comes when all have run. Nothing when piped.
	var each func(capability.ExampleResult)
	if terminal(io) {
		each = func(r capability.ExampleResult) {
			verdict := "passed"
			if !r.Pass {
				verdict = "failed"
			}
			fmt.Fprintf(io.Err, "example %d/%d %s\n", r.Index, len(doc.Examples), verdict)
		}
	}
	results := capability.RunExamplesEach(cmd.Context(), eng, doc, capability.Options{Env: env, Account: localAccount,
		Credentials: services, NoNetwork: !f.live, Nested: eng}, each)
	failed := 0
	for _, r := range results {
		if r.Pass {
			fmt.Fprintf(io.Out, "PASS %d %s\n", r.Index, r.Description)
			continue
		}
		failed++
		fmt.Fprintf(io.Out, "FAIL %d %s\n", r.Index, r.Description)
		for _, p := range r.Problems {
			fmt.Fprintf(io.Out, "     %s\n", p)
		}
	}
	if failed > 0 {
		fmt.Fprintf(io.Out, "%d of %d examples failed\n", failed, len(results))
		return silent(ExitFailed)
	}
	fmt.Fprintf(io.Out, "all %d examples passed\n", len(results))
	return nil
}
