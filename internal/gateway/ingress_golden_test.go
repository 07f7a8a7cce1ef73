package gateway_test

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/gateway"
)

// One table of calls, answered through every ingress sluice has: each row is
// an outcome (success, invalid input, forbidden, ...), each ingress makes the
// row's call on its own wire. Two things are checked:
//   - the transcript of every ingress against its golden file in
//     testdata/ingress/ (volatile values normalised; -update rewrites them);
//   - apart from the goldens, that the code each wire shows is the one the
//     table in internal/fault/codes.go gives the row's code on that wire
//     (fault.RowOf): every wire agrees, and a wire that stops agreeing fails.
//
// To add a row: append an ingressCase (its account, its call per wire, the
// outcome it must have, an sse call or the reason there is none), run
// `go test ./internal/gateway -run TestIngress -update`, and read the new
// golden sections before committing them. To add an ingress: write a driver
// (ingress_wires_test.go) that makes a callSpec on its wire and returns an
// exchange, add it to ingresses with the wire family whose codes it shows
// (or a new family in verdict.matches), and run with -update.

var updateIngressGoldens = flag.Bool("update", false, "rewrite the golden files of testdata/ingress/")

// outcome is how a row's call must end. A call is refused (an error answer
// with the kind's code) or it ran: an execution that ended with the kind
// (ran) answers as the A2E spec's execute response, whose status and
// errors carry the kind.
type outcome struct {
	ok   bool   // success
	code string // when not ok: the row of internal/fault/codes.go (fault.RowOf)
	ran  bool   // the call ran; the code is its execution's
}

// row is the fault table's row of o's code.
func (o outcome) row() fault.Row { return fault.RowOf(o.code) }

func (o outcome) String() string {
	switch {
	case o.ok:
		return "success"
	case o.ran:
		return "ran: " + o.code
	}
	return "refused: " + o.code
}

// ingressCase is one row of the table.
type ingressCase struct {
	name string
	want outcome
	// perms and limits make the account that calls (one per ingress).
	perms, limits map[string]any
	// unknownKey: the call presents a well-formed key no account has.
	unknownKey bool
	call       callSpec
	// before runs before the call (spends a request budget, say), on every
	// wire but sse, whose call (sse) makes its own ready.
	before func(e *ingressEnv, key string)
	// during runs while the call is in flight, once its ingress says it is
	// under way (cancels it, say).
	during func(e *ingressEnv, key string)
	// sse readies the row's call on the execution event stream and returns
	// the path to follow (nil where the row does not apply to it).
	sse func(e *ingressEnv, key string) string
	// notOn names the wire families (rest, e2a, session, sse, mcp) the row does
	// not apply to, and why.
	notOn map[string]string
	// server, when set, are the options of a server of the row's own.
	server []any
}

// Fixed client executionIds keep the goldens stable: each row's account is
// new, and an executionId is an idempotency key per account only.
func waitExecution(ms int) string {
	return jsonl(
		fmt.Sprintf(`{"type":"operationUpdate","operationId":"pause","operation":{"Wait":{"duration":%d}}}`, ms),
		`{"type":"beginExecution","executionId":"ingress-wait","operationOrder":["pause"]}`)
}

var filterExecution = jsonl(
	`{"type":"operationUpdate","operationId":"f","operation":{"FilterData":{"inputPath":"/input/xs","conditions":[],"outputPath":"/workflow/r"}}}`,
	`{"type":"beginExecution","executionId":"ingress-filter","operationOrder":["f"]}`)

var brokenExecution = jsonl(
	`{"type":"operationUpdate","operationId":"pause","operation":{"Wait":{"duration":"soon"}}}`,
	`{"type":"beginExecution","executionId":"ingress-broken","operationOrder":["pause"]}`)

var (
	mayWait        = map[string]any{"operations": []string{"Wait"}}
	noRequestLimit = map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1}
	oneAMinute     = map[string]any{"requests_per_minute": 1}
	hundredMsMax   = map[string]any{"max_execution_time_ms": 100}
)

// The deadlines below only stop a hung test; nothing asserts a timing. A
// Wait meant to be stopped (by a time limit or a cancel) is long enough that
// it never ends on its own within a run.
const (
	stoppedWaitMs = 120000
	hungAfter     = 30 * time.Second
)

var ingressCases = []ingressCase{
	{
		name: "success", want: outcome{ok: true}, perms: mayWait,
		call: executeCall(map[string]any{"workflow": waitExecution(1)}),
		sse: func(e *ingressEnv, key string) string {
			id := e.s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": waitExecution(1)}).want(e.t, 200).str("execution_id")
			return "/api/v1/executions/" + id + "/events"
		},
	},
	{
		name: "invalid_input", want: outcome{code: fault.Invalid.String()}, perms: mayWait,
		call: executeCall(map[string]any{"workflow": waitExecution(1), "bogus": 1}),
		sse: func(*ingressEnv, string) string {
			return "/api/v1/executions/exec-000000000000000000000000/events?after=-1"
		},
	},
	{
		// A document that does not validate: the table's invalid_workflow
		// row (REST answers the validate report itself, with 400).
		name: "invalid_workflow", want: outcome{code: fault.CodeInvalidWorkflow}, perms: mayWait,
		call:  executeCall(map[string]any{"workflow": brokenExecution}),
		notOn: map[string]string{"sse": "the event stream takes no document"},
	},
	{
		name: "unauthenticated", want: outcome{code: fault.Unauthenticated.String()}, perms: mayWait, unknownKey: true,
		call: executeCall(map[string]any{"workflow": waitExecution(1)}),
		sse: func(*ingressEnv, string) string {
			return "/api/v1/executions/exec-000000000000000000000000/events"
		},
	},
	{
		// A document that uses an operation the account may not: the
		// table's forbidden_workflow row.
		name: "forbidden", want: outcome{code: fault.CodeForbiddenWorkflow}, perms: mayWait,
		call:  executeCall(map[string]any{"workflow": filterExecution}),
		notOn: map[string]string{"sse": "any account may follow its own executions, and another's is not found (scoping hides it): nothing on this wire is forbidden"},
	},
	{
		name: "not_found", want: outcome{code: fault.NotFound.String()}, perms: mayWait,
		call: callSpec{
			httpMethod: "GET", path: "/api/v1/executions/exec-000000000000000000000000",
			method: "execution.get", params: map[string]any{"execution_id": "exec-000000000000000000000000"},
			// A session names no execution: its not-found is a tool.
			tool: "op.Teleport", args: map[string]any{},
		},
		sse: func(*ingressEnv, string) string {
			return "/api/v1/executions/exec-000000000000000000000000/events"
		},
	},
	{
		// The account's budget is one request a minute, spent before the
		// call. The session handshake is not a request; the session's own
		// calls_per_second limit (default 100, bursts of 16) is far away
		// for the one call a row makes.
		name: "rate_limited", want: outcome{code: fault.RateLimited.String()}, perms: mayWait, limits: oneAMinute,
		call:   executeCall(map[string]any{"workflow": waitExecution(1)}),
		before: spendBudget,
		sse: func(e *ingressEnv, key string) string {
			spendBudget(e, key)
			return "/api/v1/executions/exec-000000000000000000000000/events"
		},
	},
	{
		// A session's own limit, calls_per_second, refuses a call of a
		// session that spent it (here: a burst of one, refilled every
		// 1000 s), whatever the account's budget.
		name: "rate_limited_session", want: outcome{code: fault.RateLimited.String()}, perms: mayWait,
		server: []any{withSession(gateway.SessionConfig{MaxParallel: 1, CallsPerSecond: 0.001})},
		call:   withCallsBefore(executeCall(map[string]any{"workflow": waitExecution(1)}), 1),
		notOn: map[string]string{
			"rest": "a session's own limit", "e2a": "a session's own limit", "sse": "a session's own limit",
			"mcp": "an A2E session's own limit: MCP sessions have none",
		},
	},
	{
		name: "timeout", want: outcome{code: fault.Timeout.String(), ran: true}, perms: mayWait, limits: hundredMsMax,
		call: executeCall(map[string]any{"workflow": waitExecution(stoppedWaitMs)}),
		sse: func(e *ingressEnv, key string) string {
			id := e.s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": waitExecution(stoppedWaitMs)}).want(e.t, 200).str("execution_id")
			return "/api/v1/executions/" + id + "/events"
		},
	},
	{
		// Cancelled by POST .../cancel while the call waits for it.
		name: "cancelled", want: outcome{code: fault.Cancelled.String(), ran: true}, perms: mayWait, limits: noRequestLimit,
		call:   executeCall(map[string]any{"workflow": waitExecution(stoppedWaitMs)}),
		during: func(e *ingressEnv, key string) { cancelRunning(e, key) },
		// The stream of a synchronous execution cancelled the same way. Not
		// an asynchronous one followed live: its Wait parks, and a cancel
		// that lands as it parks leaves the stream without its final frame
		// (see cancelledStream).
		sse: cancelledStream,
	},
}

// spendBudget makes the one request a minute of a rate_limited row's account.
func spendBudget(e *ingressEnv, key string) {
	e.s.call("GET", "/api/v1/capabilities", key, nil).want(e.t, http.StatusOK)
}

// cancelRunning cancels the account's one running execution and returns its id.
func cancelRunning(e *ingressEnv, key string) string {
	var id string
	waitFor(e.t, hungAfter, "the execution to run", func() bool {
		list := e.s.call("GET", "/api/v1/executions?status=running", key, nil).want(e.t, http.StatusOK)
		if xs, _ := list.get("executions").([]any); len(xs) == 1 {
			id, _ = xs[0].(map[string]any)["execution_id"].(string)
		}
		return id != ""
	})
	if st := e.s.call("POST", "/api/v1/executions/"+id+"/cancel", key, nil).want(e.t, http.StatusOK).str("status"); st != "cancelled" {
		e.t.Fatalf("cancel of %s: status %q", id, st)
	}
	return id
}

// cancelledStream runs a synchronous execution, cancels it while it runs,
// and follows its stream once the execute call has answered. An
// asynchronous execution would park its long Wait; a cancel that finds it
// between its parked frame and the worker letting it go signals a run that
// has already returned, so no final frame is ever stored and a live stream
// of it does not end (rare, about one run in 300, so a row that did it
// would not be deterministic).
func cancelledStream(e *ingressEnv, key string) string {
	answered := make(chan error, 1)
	go func() {
		resp, err := ingressRequest(e, "POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": waitExecution(stoppedWaitMs)})
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		answered <- err
	}()
	id := cancelRunning(e, key)
	if err := <-answered; err != nil {
		e.t.Fatalf("the cancelled execute: %v", err)
	}
	return "/api/v1/executions/" + id + "/events"
}

func TestIngress(t *testing.T) {
	for _, ing := range ingresses {
		t.Run(ing.name, func(t *testing.T) {
			e := newIngressEnv(t)
			var golden strings.Builder
			golden.WriteString(goldenHeader(ing.name))
			ran := 0
			for _, c := range ingressCases {
				t.Run(c.name, func(t *testing.T) {
					e.t = t
					ran++
					fmt.Fprintf(&golden, "\n## %s (%s)\n", c.name, c.want)
					if why, no := c.notOn[ing.wire]; no {
						fmt.Fprintf(&golden, "n/a: %s\n", why)
						t.Skip("does not apply: " + why)
					}
					x := ing.run(e, c)
					golden.WriteString(x.transcript)
					checkVerdict(t, ing.wire, c, x.verdict)
				})
			}
			e.t = t
			if ran < len(ingressCases) {
				return // -run chose some rows: a golden is the whole table
			}
			checkIngressGolden(t, filepath.Join("testdata", "ingress", ing.name+".golden"), golden.String())
		})
	}
}

// checkVerdict asserts that the wire's code is the fault table's for the
// row's outcome.
func checkVerdict(t *testing.T, wire string, c ingressCase, v verdict) {
	t.Helper()
	t.Logf("wire shows %s", v) // -v prints the table
	if err := v.matches(wire, c.want); err != nil {
		t.Errorf("%s: %v (wire shows %s)", c.name, err, v)
	}
}
