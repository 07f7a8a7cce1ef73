// Package client is a Go client for sluice's REST API (docs/api.md): the
// endpoints an account calls, the run API over every kind of run, the A2S
// registry and the admin API. It speaks plain JSON over net/http and
// returns an answer other than 2xx as *Error (the HTTP status and the
// server's error object; an invalid workflow's validate report in Report).
// The sluice CLI's server commands are built on it.
//
// One Client calls one server with one key:
//
//	c := client.New("http://127.0.0.1:8080", os.Getenv("SLUICE_API_KEY"), nil)
//
// Run a workflow and wait for it (Execute), or queue it (Async) and follow
// it as its steps run (RunEvents):
//
//	ex, err := c.Execute(ctx, workflow, client.ExecuteOptions{Input: map[string]any{"city": "Oslo"}})
//	ex, err = c.Execute(ctx, workflow, client.ExecuteOptions{Async: true})
//	end, err := c.RunEvents(ctx, ex.ExecutionID, 0, func(f client.Frame) error { ...; return nil })
//
// Runs of every kind (A2E executions, capability runs, agent workflow
// runs) are listed, read and cancelled in one shape:
//
//	runs, next, err := c.Runs(ctx, client.RunsQuery{Status: []string{"failed"}})
//	run, err := c.Run(ctx, id)            // run.Detail: the kind's own view
//	run, err = c.CancelRun(ctx, id)       // a run already ended: a 409 *Error
//
// The A2S registry, the audit trail (admin) and agent workflow runs:
//
//	caps, next, err := c.Capabilities(ctx, "core", "", 100)
//	entry, err := c.Capability(ctx, "core/weather/WeatherCapability", "^1.0.0")
//	recs, next, err := admin.Audit(ctx, client.AuditQuery{Decision: "deny", Since: time.Now().Add(-time.Hour)})
//	awf, next, err := c.AgentWorkflowRuns(ctx, []string{"running"}, "", 50)
//
// Agent workflow runs are started, read and cancelled as the JSON the
// server answers; an E2A envelope is posted and its frames read as they
// stream (docs/protocols/e2a.md):
//
//	raw, err := c.StartAgentWorkflowRun(ctx, workflowJSON, json.RawMessage(`{"text":"hi"}`))
//	raw, err = c.CancelAgentWorkflowRun(ctx, runID, "")
//	ans, err := c.PostE2A(ctx, env, func(f *e2a.Response) error { ...; return nil })
//
// Lists are paged: pass the returned cursor back until it is "". The
// examples below run against a server in the same process.
package client
