package op_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
)

// fakeAgents is an op.AgentCaller that records every call and answers with
// the output or error set for the agent.
type fakeAgents struct {
	mu    sync.Mutex
	calls []agentCall
	out   map[string]string // agent -> output JSON
	err   map[string]error
}

type agentCall struct {
	name, taskID, correlation string
	input                     string
}

func (f *fakeAgents) Invoke(_ context.Context, name, taskID string, input json.RawMessage, correlationID string) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, agentCall{name: name, taskID: taskID, correlation: correlationID, input: string(input)})
	if err := f.err[name]; err != nil {
		return nil, err
	}
	if out, ok := f.out[name]; ok {
		return json.RawMessage(out), nil
	}
	return nil, fault.New(fault.NotFound, "agent %q is not registered", name).WithDetail("agent", name)
}

func (f *fakeAgents) last(t *testing.T) agentCall {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		t.Fatal("the agent was not called")
	}
	return f.calls[len(f.calls)-1]
}

func agentDeps(f *fakeAgents, agents ...string) *op.Deps {
	d := dtDeps()
	d.Agents = f
	d.Permissions = policy.Permissions{Operations: []string{"*"}, Agents: agents}
	return d
}

func runAgent(t *testing.T, d *op.Deps, cfg, exec string) (any, error) {
	t.Helper()
	o, err := op.InvokeAgentOp.New(json.RawMessage(cfg), d)
	if err != nil {
		t.Fatalf("build %s: %v", cfg, err)
	}
	m := dtModel(t, `{"text":"hello","id":7}`, map[string]string{"doc": `{"title":"T","n":1.5}`, "items": `[1,2]`, "word": `"w"`})
	rc := dtRC(m)
	rc.ExecutionID, rc.OperationID, rc.Account = exec, "ask", "acct-1"
	return o.Run(context.Background(), rc)
}

func TestInvokeAgentSendsTheRenderedInputAndReturnsTheOutput(t *testing.T) {
	f := &fakeAgents{out: map[string]string{"summarizer": `{"summary":"short","n":2}`}}
	d := agentDeps(f, "summarizer")
	out, err := runAgent(t, d, `{"agent":"summarizer","input":{"text":"{/input/text}","doc":"{/workflow/doc}","line":"{/workflow/doc.title} #{/input/id}","items":["{/workflow/items}",3],"big":12345678901234567890},"outputPath":"/workflow/summary"}`, "exec-1")
	if err != nil {
		t.Fatal(err)
	}
	dtWantJSON(t, out, `{"summary":"short","n":2}`)
	c := f.last(t)
	var got, want any
	_ = json.Unmarshal([]byte(c.input), &got)
	_ = json.Unmarshal([]byte(`{"big":12345678901234567890,"doc":{"n":1.5,"title":"T"},"items":[[1,2],3],"line":"T #7","text":"hello"}`), &want)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("input sent %s, want %s", c.input, wb)
	}
	if !strings.Contains(c.input, "12345678901234567890") {
		t.Errorf("a literal number was not sent as written: %s", c.input)
	}
	if c.name != "summarizer" || c.correlation != "exec-1" {
		t.Errorf("call %+v: want agent summarizer, correlation id = execution id", c)
	}
	o, _ := op.InvokeAgentOp.New(json.RawMessage(`{"agent":"summarizer","outputPath":"/workflow/summary"}`), d)
	if p, ok := o.(op.Writer).Writes(); !ok || p.String() != "/workflow/summary" {
		t.Errorf("Writes = %v %v", p, ok)
	}
}

func TestInvokeAgentInputShapes(t *testing.T) {
	f := &fakeAgents{out: map[string]string{"a": `null`}}
	d := agentDeps(f, "a")
	for cfg, want := range map[string]string{
		`{"agent":"a","outputPath":"/workflow/o"}`:                             `{}`,
		`{"agent":"a","input":null,"outputPath":"/workflow/o"}`:                `{}`,
		`{"agent":"a","input":{"k":[1,{"x":"y"}]},"outputPath":"/workflow/o"}`: `{"k":[1,{"x":"y"}]}`,
		`{"agent":"a","input":"{/workflow/doc}","outputPath":"/workflow/o"}`:   `{"n":1.5,"title":"T"}`,
	} {
		out, err := runAgent(t, d, cfg, "e")
		if err != nil || out != nil {
			t.Fatalf("%s: %v %v", cfg, out, err)
		}
		if got := f.last(t).input; got != want {
			t.Errorf("%s sent %s, want %s", cfg, got, want)
		}
	}
	// A whole reference to something other than an object is the data's fault.
	_, err := runAgent(t, d, `{"agent":"a","input":"{/workflow/items}","outputPath":"/workflow/o"}`, "e")
	if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError || fe.OperationID != "ask" ||
		!strings.Contains(fe.Message, "/workflow/items is an array") || !strings.Contains(fe.Message, "must be an object") {
		t.Errorf("input not an object: %v", err)
	}
	_, err = runAgent(t, d, `{"agent":"a","input":{"x":"{/workflow/missing}"},"outputPath":"/workflow/o"}`, "e")
	if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError || fe.OperationID != "ask" {
		t.Errorf("missing reference: %v", err)
	}
}

func TestInvokeAgentTaskID(t *testing.T) {
	f := &fakeAgents{out: map[string]string{"a": `{}`}}
	d := agentDeps(f, "a")
	cfg := `{"agent":"a","input":{"t":"{/input/text}"},"outputPath":"/workflow/o"}`
	idOf := func(cfg, exec string) string {
		t.Helper()
		if _, err := runAgent(t, d, cfg, exec); err != nil {
			t.Fatal(err)
		}
		return f.last(t).taskID
	}
	first := idOf(cfg, "exec-1")
	// A resumed execution builds the operation again and sends the same id.
	if again := idOf(cfg, "exec-1"); again != first || !strings.HasPrefix(first, "sluice-") {
		t.Errorf("task ids %q then %q: want the same derived id", first, again)
	}
	if other := idOf(cfg, "exec-2"); other == first {
		t.Error("another execution sent the same task id")
	}
	if other := idOf(`{"agent":"a","input":{"t":"other"},"outputPath":"/workflow/o"}`, "exec-1"); other == first {
		t.Error("another input (a Loop's next item) sent the same task id")
	}
	if got := op.DerivedTaskID("acct-1", "exec-1", "ask", []byte(`{"t":"hello"}`)); got != first {
		t.Errorf("DerivedTaskID = %q, the operation sent %q", got, first)
	}
	if op.DerivedTaskID("a", "bc", "d", nil) == op.DerivedTaskID("ab", "c", "d", nil) {
		t.Error("the parts of a derived id are not framed")
	}
	if got := idOf(`{"agent":"a","taskId":"job-{/input/id}-{/workflow/word}","outputPath":"/workflow/o"}`, "exec-1"); got != "job-7-w" {
		t.Errorf("taskId template sent %q", got)
	}
}

func TestInvokeAgentGrant(t *testing.T) {
	f := &fakeAgents{out: map[string]string{"summarizer": `{}`}}
	// Refused when built: nothing runs.
	_, err := op.InvokeAgentOp.New(json.RawMessage(`{"agent":"summarizer","outputPath":"/workflow/o"}`), agentDeps(f, "other"))
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.PermissionDenied || fe.SpecType() != fault.PermissionError || fe.Path != "operation.InvokeAgent.agent" ||
		!strings.Contains(fe.Message, `"summarizer"`) {
		t.Fatalf("build without the grant: %#v", err)
	}
	// Refused when run, should the grant be gone by then; the agent is never called.
	d := agentDeps(f, "*")
	o, err := op.InvokeAgentOp.New(json.RawMessage(`{"agent":"summarizer","outputPath":"/workflow/o"}`), d)
	if err != nil {
		t.Fatal(err)
	}
	d.Permissions.Agents = []string{"other"}
	_, err = o.Run(context.Background(), dtRC(dtModel(t, "", nil)))
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.PermissionDenied || !strings.Contains(fe.Message, `"summarizer"`) || fe.OperationID != "op-test" {
		t.Fatalf("run without the grant: %v", err)
	}
	if len(f.calls) != 0 {
		t.Fatalf("the agent was called without the grant: %+v", f.calls)
	}
}

func TestInvokeAgentFailuresPassThrough(t *testing.T) {
	upstream := fault.New(fault.Upstream, "agent flaky answered 503 Service Unavailable (after 4 attempts)").
		WithDetail("agent", "flaky").WithDetail("attempts", 4).Retry(0)
	f := &fakeAgents{out: map[string]string{}, err: map[string]error{
		"flaky":   upstream,
		"slow":    fault.New(fault.Timeout, "agent slow did not answer within 30000 ms"),
		"foreign": errors.New("dial tcp 10.0.0.1:80: secret-looking detail"),
	}}
	d := agentDeps(f, "*")
	for _, tc := range []struct {
		agent string
		kind  fault.Kind
		msg   string
	}{
		{"unknown", fault.NotFound, `agent "unknown" is not registered`},
		{"flaky", fault.Upstream, "503 Service Unavailable (after 4 attempts)"},
		{"slow", fault.Timeout, "did not answer within 30000 ms"},
		{"foreign", fault.Internal, `calling agent "foreign" failed`},
	} {
		_, err := runAgent(t, d, `{"agent":"`+tc.agent+`","outputPath":"/workflow/o"}`, "e")
		fe, ok := fault.As(err)
		if !ok || fe.Kind != tc.kind || !strings.Contains(fe.Message, tc.msg) {
			t.Errorf("%s: got %v, want %v ~%q", tc.agent, err, tc.kind, tc.msg)
			continue
		}
		// The invoker has retried already: the engine must not repeat the call.
		if fe.Retryable || fe.OperationID != "ask" || fe.Details["agent"] != tc.agent {
			t.Errorf("%s: retryable %v, operation %q, details %v", tc.agent, fe.Retryable, fe.OperationID, fe.Details)
		}
		if strings.Contains(fe.Object().Message, "secret-looking") {
			t.Errorf("%s: a foreign error's text reached the public message", tc.agent)
		}
	}
	if !upstream.Retryable || upstream.OperationID != "" {
		t.Error("the agent's own error value was changed")
	}
}

func TestInvokeAgentWithoutAnInvoker(t *testing.T) {
	d := agentDeps(nil, "a")
	d.Agents = nil
	_, err := runAgent(t, d, `{"agent":"a","outputPath":"/workflow/o"}`, "e")
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Unavailable || !strings.Contains(fe.Message, "not configured") {
		t.Fatalf("no invoker: %v", err)
	}
}

func TestInvokeAgentOutputNotJSON(t *testing.T) {
	f := &fakeAgents{out: map[string]string{"a": `{"x":`}}
	_, err := runAgent(t, agentDeps(f, "a"), `{"agent":"a","outputPath":"/workflow/o"}`, "e")
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Upstream || fe.Retryable {
		t.Fatalf("bad output: %v", err)
	}
}

func TestInvokeAgentConfigErrors(t *testing.T) {
	d := agentDeps(&fakeAgents{}, "*")
	for cfg, path := range map[string]string{
		`{"outputPath":"/workflow/o"}`:                   "operation.InvokeAgent.agent",
		`{"agent":"agent.x","outputPath":"/workflow/o"}`: "operation.InvokeAgent.agent",
		`{"agent":"a"}`:                         "operation.InvokeAgent.outputPath",
		`{"agent":"a","outputPath":"/input/o"}`: "operation.InvokeAgent.outputPath",
		`{"agent":"a","outputPath":"/workflow/o","retry":{"maxRetries":2}}`:                    "operation.InvokeAgent.retry",
		`{"agent":"a","outputPath":"/workflow/o","cache":false}`:                               "operation.InvokeAgent.cache",
		`{"agent":"a","outputPath":"/workflow/o","timeout":0}`:                                 "operation.InvokeAgent.timeout",
		`{"agent":"a","input":[1],"outputPath":"/workflow/o"}`:                                 "operation.InvokeAgent.input",
		`{"agent":"a","input":"text","outputPath":"/workflow/o"}`:                              "operation.InvokeAgent.input",
		`{"agent":"a","input":"a {/input/x} b","outputPath":"/workflow/o"}`:                    "operation.InvokeAgent.input",
		`{"agent":"a","input":{"k":{"credentialRef":{"id":"c"}}},"outputPath":"/workflow/o"}`:  "operation.InvokeAgent.input",
		`{"agent":"a","input":{"k":"{/workflow/"},"outputPath":"/workflow/o"}`:                 "operation.InvokeAgent.input.k",
		`{"agent":"a","taskId":"a\u0001b","outputPath":"/workflow/o"}`:                         "operation.InvokeAgent.taskId",
		`{"agent":"a","taskId":"` + strings.Repeat("x", 257) + `","outputPath":"/workflow/o"}`: "operation.InvokeAgent.taskId",
		`{"agent":"a","task_id":"t","outputPath":"/workflow/o"}`:                               "operation.InvokeAgent.task_id",
	} {
		fe := dtConfigError(t, op.InvokeAgentOp, d, cfg, path)
		if strings.HasSuffix(path, ".retry") && !strings.Contains(fe.Message, "retry_config") {
			t.Errorf("retry: %s does not say why", fe.Message)
		}
	}
}

func TestInvokeAgentReads(t *testing.T) {
	o, err := op.InvokeAgentOp.New(json.RawMessage(`{"agent":"a","input":{"x":"{/workflow/a}","y":"n {/input/b}"},"taskId":"{/workflow/c}","outputPath":"/workflow/o"}`), agentDeps(&fakeAgents{}, "a"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range o.(op.Reader).Reads() {
		got = append(got, p.String())
	}
	joined := strings.Join(got, " ")
	for _, want := range []string{"/workflow/a", "/input/b", "/workflow/c"} {
		if !strings.Contains(joined, want) {
			t.Errorf("Reads = %v, missing %s", got, want)
		}
	}
}

// TestInvokeAgentChargesItsOutput: an agent's output is charged to the data
// budget by its length before it is decoded, and by its decoded size after.
func TestInvokeAgentChargesItsOutput(t *testing.T) {
	output := `{"rows":[` + strings.Repeat(`{"a":"x"},`, 99) + `{"a":"x"}]}`
	f := &fakeAgents{out: map[string]string{"summarizer": output}}
	o, err := op.InvokeAgentOp.New(json.RawMessage(`{"agent":"summarizer","outputPath":"/workflow/s"}`), agentDeps(f, "summarizer"))
	if err != nil {
		t.Fatal(err)
	}
	rc := dtRC(dtModel(t, "", nil))
	rc.Budget = datamodel.NewBudget(0)
	out, err := o.Run(context.Background(), rc)
	if err != nil {
		t.Fatal(err)
	}
	if want := datamodel.Size(out); rc.Budget.Used() != want || want <= int64(len(output)) {
		t.Errorf("charged %d, want the decoded size %d (JSON %d)", rc.Budget.Used(), want, len(output))
	}

	rc = dtRC(dtModel(t, "", nil))
	rc.Budget = datamodel.NewBudget(int64(len(output)) - 1)
	out, err = o.Run(context.Background(), rc)
	if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError || out != nil || rc.Budget.Used() != int64(len(output)) {
		t.Fatalf("over the budget before decoding: %v %v, %d charged", out, err, rc.Budget.Used())
	}
}
