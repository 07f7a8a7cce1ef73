package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// A workflow of three data steps: seed, filter, sort.
const workflow = `{"type":"operationUpdate","operationId":"seed","operation":{"LoadData":{"storage":"sessionStorage","key":"none","default":[{"n":"a","v":3},{"n":"b","v":1},{"n":"c","v":2}],"outputPath":"/workflow/items"}}}
{"type":"operationUpdate","operationId":"big","operation":{"FilterData":{"inputPath":"/workflow/items","conditions":[{"field":"v","operator":">=","value":{"path":"/input/min"}}],"outputPath":"/workflow/big"}}}
{"type":"operationUpdate","operationId":"sorted","operation":{"TransformData":{"inputPath":"/workflow/big","transform":"sort","config":{"field":"v"},"outputPath":"/workflow/sorted"}}}
{"type":"beginExecution","executionId":"example-1","operationOrder":["seed","big","sorted"]}
`

// server starts sluice in this process and returns a client of a new
// account that may run the data operations, and the admin's client.
func server() (c, admin *client.Client, stop func()) {
	cfg := config.Defaults()
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		panic(err)
	}
	cfg.DataDir = dir
	app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(app.Server.Handler())
	admin = client.New(srv.URL, app.AdminKey, nil)
	name := "example"
	_, key, err := admin.CreateAccount(context.Background(), client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"LoadData", "FilterData", "TransformData"}, CapabilityLevel: "basic"}})
	if err != nil {
		panic(err)
	}
	return client.New(srv.URL, key.APIKey, nil), admin, func() { srv.Close(); _ = app.Close(); _ = os.RemoveAll(dir) }
}

func ExampleClient_Execute() {
	c, _, stop := server()
	defer stop()
	ex, err := c.Execute(context.Background(), workflow, client.ExecuteOptions{Input: map[string]any{"min": 2}})
	if err != nil {
		panic(err)
	}
	fmt.Println(ex.Status, ex.Results["sorted"])

	// An invalid workflow is a 400 *Error with the validate report.
	_, err = c.Execute(context.Background(), strings.Replace(workflow, `">="`, `"=>"`, 1), client.ExecuteOptions{})
	var ce *client.Error
	if errors.As(err, &ce) && ce.Report != nil {
		fmt.Println(ce.Status, "line", ce.Report.Errors[0].Line, ce.Report.Errors[0].OperationID)
	}
	// Output:
	// success [map[n:c v:2] map[n:a v:3]]
	// 400 line 2 big
}

func ExampleClient_RunEvents() {
	c, _, stop := server()
	defer stop()
	ctx := context.Background()
	ex, err := c.Execute(ctx, workflow, client.ExecuteOptions{Input: map[string]any{"min": 2}, Async: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(ex.Status)
	end, err := c.RunEvents(ctx, ex.ExecutionID, 0, func(f client.Frame) error {
		// f.Data is one E2A response frame: each step's events, then the final one.
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(end.Ended, end.Frames == end.LastSeq)
	// Output:
	// queued
	// true true
}

func ExampleClient_Runs() {
	c, _, stop := server()
	defer stop()
	ctx := context.Background()
	if _, err := c.Execute(ctx, workflow, client.ExecuteOptions{Input: map[string]any{"min": 2}}); err != nil {
		panic(err)
	}
	runs, next, err := c.Runs(ctx, client.RunsQuery{Kinds: []string{"a2e"}, Status: []string{"success"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(runs), runs[0].Kind, runs[0].Status, next == "")

	run, err := c.Run(ctx, runs[0].RunID) // with its detail: the execution
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Final(), strings.Contains(string(run.Detail), `"sorted"`))
	// Output:
	// 1 a2e success true
	// true true
}

func ExampleClient_CancelRun() {
	c, _, stop := server()
	defer stop()
	ctx := context.Background()
	ex, err := c.Execute(ctx, workflow, client.ExecuteOptions{Input: map[string]any{"min": 2}})
	if err != nil {
		panic(err)
	}
	// A run that has ended cannot be cancelled: 409.
	_, err = c.CancelRun(ctx, ex.ExecutionID)
	var ce *client.Error
	if errors.As(err, &ce) {
		fmt.Println(ce.Status)
	}
	// Output:
	// 409
}

func ExampleClient_Capabilities() {
	c, admin, stop := server()
	defer stop()
	ctx := context.Background()
	doc := "a2s: 1.0.0\nid: Hello\nversion: 1.2.0\ntype: atomic\ndescription: says hello\naudit: {status: unaudited}\n" +
		"permissions: {level: basic}\ninputs:\n  name: {type: string}\noutputs:\n  greeting: {type: string, lifecycle: task}\n" +
		"tasks:\n  - id: hi\n    type: agent_decision\n    inputs:\n      name: {mapping: inputs.name}\n" +
		"    outputs:\n      greeting: {type: string, lifecycle: task}\n    definition:\n      logic: |\n        greeting = \"hello \" + name\n"
	tree, err := a2s.ParseTree([]byte(doc), a2s.Options{})
	if err != nil {
		panic(err)
	}
	sum, err := a2s.ComputeChecksum(tree)
	if err != nil {
		panic(err)
	}
	if err := admin.Do(ctx, "POST", "/api/v1/a2s/registry", map[string]any{"namespace": "demo", "document": "checksum: " + sum + "\n" + doc}, nil); err != nil {
		panic(err)
	}
	caps, _, err := c.Capabilities(ctx, "demo", "", 100)
	if err != nil {
		panic(err)
	}
	fmt.Println(caps[0].Namespace, caps[0].ID, caps[0].Version, caps[0].Versions)
	e, err := c.Capability(ctx, "demo/Hello", "^1.0.0")
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Version, strings.HasPrefix(e.Document, "checksum: sha256:"))
	// Output:
	// demo Hello 1.2.0 1
	// 1.2.0 true
}

func ExampleClient_Audit() {
	_, admin, stop := server()
	defer stop()
	// The admin's account creation is in the trail (written behind the call).
	recs, _, err := admin.Audit(context.Background(), client.AuditQuery{Method: "admin.accounts.create", Decision: "allow"})
	if err != nil {
		panic(err)
	}
	for _, r := range recs {
		fmt.Println(r.Method, r.Decision)
	}
}

func ExampleClient_AgentWorkflowRuns() {
	c, _, stop := server()
	defer stop()
	runs, next, err := c.AgentWorkflowRuns(context.Background(), []string{"running", "waiting"}, "", 50)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(runs), next == "")
	// Output:
	// 0 true
}
