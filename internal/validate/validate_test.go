package validate_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/validate"
)

// Operation configs the table uses.
const (
	fetchUsers   = `{"ApiCall":{"method":"GET","url":"https://api.example.com/users","outputPath":"/workflow/users"}}`
	filterActive = `{"FilterData":{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active"}}`
	waitOK       = `{"Wait":{"duration":10}}`
)

const (
	VE = fault.ValidationError
	PE = fault.PermissionError
	DE = fault.DataError
)

type tcase struct {
	name  string
	doc   string
	opts  func() validate.Options // nil: opts()
	errs  []want
	warns []want
}

func runTable(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := opts()
			if tc.opts != nil {
				o = tc.opts()
			}
			r := validate.Workflow(parseDoc(t, tc.doc), o)
			checkProblems(t, "errors", r.Errors, tc.errs)
			checkProblems(t, "warnings", r.Warnings, tc.warns)
			if r.Valid != (len(tc.errs) == 0) {
				t.Errorf("valid = %v with %d errors", r.Valid, len(r.Errors))
			}
			forbidden := false
			for _, w := range tc.errs {
				forbidden = forbidden || w.typ == PE
			}
			if r.Forbidden() != forbidden {
				t.Errorf("Forbidden() = %v, want %v", r.Forbidden(), forbidden)
			}
		})
	}
}

func TestStructureAndCatalog(t *testing.T) {
	runTable(t, []tcase{
		{
			name: "factory error gets line and operation",
			doc:  doc(upd("w", `{"Wait":{"duration":-1}}`), begin("w")),
			errs: []want{{typ: VE, line: 1, path: "operation.Wait.duration", op: "w", msg: "duration must be between"}},
		},
		{
			name: "factory error with a relative path is rooted at the operation",
			doc:  doc(upd("w", `{"Wait":{"duration":-2}}`), begin("w")),
			errs: []want{{typ: VE, line: 1, path: "operation.Wait.duration", op: "w", msg: "duration must be between"}},
		},
		{
			name: "every joined factory error is reported",
			doc:  doc(upd("w", `{"Wait":{"duration":-3}}`), begin("w")),
			errs: []want{
				{typ: VE, line: 1, path: "operation.Wait.duration", op: "w", msg: "duration must be between"},
				{typ: VE, line: 1, path: "operation.Wait.timeout", op: "w", msg: "timeout must be positive"},
			},
		},
		{
			name: "a foreign factory error does not leak its text",
			doc:  doc(upd("w", `{"Wait":{"duration":-4}}`), begin("w")),
			errs: []want{{typ: VE, line: 1, path: "operation.Wait", op: "w", msg: "Wait configuration is invalid"}},
		},
		{
			name: "a factory may return the codec's error list",
			doc:  doc(upd("w", `{"Wait":{"duration":-5}}`), begin("w")),
			errs: []want{
				{typ: VE, line: 1, path: "operation.Wait.duration", op: "w", msg: "duration"},
				{typ: VE, line: 1, path: "operation.Wait.extra", op: "w", msg: "extra"},
			},
		},
		{
			name: "unknown operation with a near miss",
			doc:  doc(upd("f", `{"FilterDatas":{"inputPath":"/workflow/x"}}`), begin("f")),
			errs: []want{{typ: VE, line: 1, path: "operation.FilterDatas", op: "f", msg: `unknown operation "FilterDatas"`, sugg: "did you mean FilterData?"}},
		},
		{
			name: "unknown operation lists the catalog",
			doc:  doc(upd("f", `{"Frobnicate":{}}`), begin("f")),
			errs: []want{{typ: VE, line: 1, path: "operation.Frobnicate", op: "f", msg: "unknown operation", sugg: "Use one of: ApiCall, FilterData"}},
		},
		{
			name: "nil environment knows the spec catalog by name",
			doc:  doc(upd("w", `{"Wait":{"duration":-1}}`), upd("x", `{"Nope":{}}`), begin("w", "x")),
			opts: func() validate.Options { return validate.Options{} },
			errs: []want{{typ: VE, line: 2, path: "operation.Nope", op: "x", msg: "unknown operation"}},
		},
		{
			name: "nil environment decodes configs strictly",
			doc: doc(upd("w", `{"Wait":{"duration":"x"}}`),
				upd("t", `{"TransformData":{"inputPath":"/input/x","transform":"sort","config":{"fieldd":"a"},"outputPath":"/workflow/o"}}`),
				begin("w", "t")),
			opts: func() validate.Options { return validate.Options{} },
			errs: []want{
				{typ: VE, line: 1, path: "operation.Wait.duration", op: "w", msg: "expected number"},
				{typ: VE, line: 2, path: "operation.TransformData.config.field", op: "t", msg: "missing required field"},
				{typ: VE, line: 2, path: "operation.TransformData.config.fieldd", op: "t", msg: "unknown field"},
			},
		},
	})
}

func TestPermission(t *testing.T) {
	withPerm := func(mod func(*validate.Options)) func() validate.Options {
		return func() validate.Options { o := opts(); mod(&o); return o }
	}
	apiCall := func(url string) string {
		return `{"ApiCall":{"method":"GET","url":"` + url + `","outputPath":"/workflow/r"}}`
	}
	runTable(t, []tcase{
		{
			name: "operation not allowed",
			doc:  doc(upd("f", fetchUsers), begin("f")),
			opts: withPerm(func(o *validate.Options) { o.Env = o.Env.Without("ApiCall") }),
			errs: []want{{typ: PE, line: 1, path: "operation.ApiCall", op: "f", msg: "operation ApiCall is not permitted for this account", sugg: "FilterData"}},
		},
		{
			name: "operation not allowed: its factory does not run",
			doc:  doc(upd("w", `{"Wait":{"duration":-1}}`), begin("w")),
			opts: withPerm(func(o *validate.Options) { o.Env = o.Env.With("ApiCall") }),
			errs: []want{{typ: PE, line: 1, path: "operation.Wait", op: "w", msg: "operation Wait is not permitted", sugg: "ApiCall"}},
		},
		{
			name: "host not permitted",
			doc:  doc(upd("f", apiCall("https://api.evil.com/x")), begin("f")),
			errs: []want{{typ: PE, line: 1, path: "operation.ApiCall.url", op: "f", msg: "host api.evil.com is not permitted for this account", sugg: "ask an administrator"}},
		},
		{
			name: "host near miss",
			doc:  doc(upd("f", apiCall("https://api.exampel.com/x")), begin("f")),
			errs: []want{{typ: PE, line: 1, path: "operation.ApiCall.url", op: "f", msg: "host api.exampel.com is not permitted", sugg: "did you mean api.example.com?"}},
		},
		{
			name: "host granted on another port",
			doc:  doc(upd("f", apiCall("https://api.example.com:8443/x")), begin("f")),
			opts: withPerm(func(o *validate.Options) { o.Permissions.Hosts = []string{"api.example.com:443"} }),
			errs: []want{{typ: PE, line: 1, path: "operation.ApiCall.url", op: "f", msg: "host api.example.com:8443 is not permitted"}},
		},
		{
			name: "host granted on the default port",
			doc:  doc(upd("f", apiCall("https://API.example.com/x")), begin("f")),
			opts: withPerm(func(o *validate.Options) { o.Permissions.Hosts = []string{"api.example.com:443"} }),
		},
		{
			name: "host allowed by AllowHost",
			doc:  doc(upd("f", apiCall("http://other.example.org:8080/x")), begin("f")),
			opts: withPerm(func(o *validate.Options) {
				o.AllowHost = func(h, p string) bool { return h == "other.example.org" && p == "8080" }
			}),
		},
		{
			name: "no account: hosts and credentials are not checked",
			doc: doc(upd("f", `{"ApiCall":{"method":"GET","url":"https://api.evil.com/x","headers":{"A":{"credentialRef":{"id":"nope"}}},"outputPath":"/workflow/r"}}`),
				begin("f")),
			opts: withPerm(func(o *validate.Options) { o.Permissions = nil }),
		},
		{
			name: "templated host is left to dial time",
			doc: doc(upd("h", `{"LoadData":{"storage":"localStorage","key":"host","outputPath":"/workflow/host"}}`),
				upd("f", apiCall("https://{/workflow/host}/x")), begin("h", "f")),
		},
		{
			name: "template in the path does not hide the host",
			doc: doc(upd("h", `{"LoadData":{"storage":"localStorage","key":"id","outputPath":"/workflow/id"}}`),
				upd("f", apiCall("https://api.evil.com/users/{/workflow/id}")), begin("h", "f")),
			errs: []want{{typ: PE, line: 2, path: "operation.ApiCall.url", op: "f", msg: "host api.evil.com is not permitted"}},
		},
		{
			name:  "private address granted: a warning",
			doc:   doc(upd("f", apiCall("http://10.0.0.5/x")), begin("f")),
			warns: []want{{typ: PE, line: 1, path: "operation.ApiCall.url", op: "f", msg: "host 10.0.0.5 is a private, loopback or link-local address"}},
		},
		{
			name:  "loopback without an account: a warning",
			doc:   doc(upd("f", apiCall("http://[::1]:8080/x")), begin("f")),
			opts:  withPerm(func(o *validate.Options) { o.Permissions = nil }),
			warns: []want{{typ: PE, line: 1, path: "operation.ApiCall.url", op: "f", msg: "host ::1 is a private"}},
		},
		{
			name: "credentials in headers and body",
			doc: doc(upd("f", `{"ApiCall":{"method":"POST","url":"https://api.example.com/x","headers":{"Authorization":{"credentialRef":{"id":"api-key-124"}},"X-Api-Key":{"credentialRef":{"id":"api-key-123"}}},"body":{"auth":{"credentialRef":{"id":"other"}},"list":[{"credentialRef":{"id":"third"}}]},"outputPath":"/workflow/r"}}`),
				begin("f")),
			errs: []want{
				{typ: PE, line: 1, path: "operation.ApiCall.body.auth.credentialRef.id", op: "f", msg: "credential other is not permitted for this account", sugg: "availableCredentials"},
				{typ: PE, line: 1, path: "operation.ApiCall.body.list[0].credentialRef.id", op: "f", msg: "credential third is not permitted"},
				{typ: PE, line: 1, path: "operation.ApiCall.headers.Authorization.credentialRef.id", op: "f", msg: "credential api-key-124 is not permitted", sugg: "did you mean api-key-123?"},
			},
		},
	})
}

func TestDependencyIDs(t *testing.T) {
	cond := func(ifTrue, ifFalse string) string {
		s := `{"Conditional":{"condition":{"path":"/input/n","operator":">","value":0},"ifTrue":` + ifTrue
		if ifFalse != "" {
			s += `,"ifFalse":` + ifFalse
		}
		return s + `}}`
	}
	loop := func(ops string) string {
		return `{"Loop":{"inputPath":"/input/items","operations":` + ops + `}}`
	}
	runTable(t, []tcase{
		{
			name: "order names an undefined operation, with a near miss",
			doc:  doc(upd("fetch-users", fetchUsers), begin("fetch-user")),
			errs: []want{{typ: VE, line: 2, path: "operationOrder[0]", msg: "operationOrder names operation fetch-user, which is not defined", sugg: "did you mean fetch-users?"}},
			warns: []want{{typ: VE, line: 1, path: "operationId", op: "fetch-users", msg: "operation fetch-users is defined but never runs",
				sugg: "Add fetch-users to operationOrder"}},
		},
		{
			name: "order repeats an operation",
			doc:  doc(upd("w", waitOK), begin("w", "w")),
			errs: []want{{typ: VE, line: 2, path: "operationOrder[1]", msg: "operation w appears twice in operationOrder (first at operationOrder[0])"}},
		},
		{
			name:  "empty order",
			doc:   doc(upd("w", waitOK), begin()),
			errs:  []want{{typ: VE, line: 2, path: "operationOrder", msg: "operationOrder is empty", sugg: "such as: w"}},
			warns: []want{{typ: VE, line: 1, path: "operationId", op: "w", msg: "never runs"}},
		},
		{
			name: "branch names undefined operations",
			doc:  doc(upd("c", cond(`["a"]`, `["b"]`)), upd("a", waitOK), begin("c")),
			errs: []want{{typ: VE, line: 1, path: "operation.Conditional.ifFalse[0]", op: "c", msg: "ifFalse names operation b, which is not defined",
				sugg: "Define operation b with an operationUpdate before beginExecution"}},
		},
		{
			name: "loop names an undefined operation",
			doc:  doc(upd("l", loop(`["nope"]`)), begin("l")),
			errs: []want{{typ: VE, line: 1, path: "operation.Loop.operations[0]", op: "l", msg: "operations names operation nope, which is not defined"}},
		},
		{
			name: "nested operation also in the order",
			doc:  doc(upd("c", cond(`["a"]`, "")), upd("a", waitOK), begin("c", "a")),
			errs: []want{{typ: VE, line: 3, path: "operationOrder[1]", msg: "operation a is in operationOrder and in the ifTrue of c; it would run twice",
				sugg: "Remove a from operationOrder"}},
		},
		{
			name: "the same operation in two bodies is allowed",
			doc: doc(upd("c", cond(`["a"]`, `["a"]`)), upd("l", loop(`["a"]`)), upd("a", waitOK),
				begin("c", "l")),
		},
		{
			name: "the same operation twice in one body",
			doc:  doc(upd("l", loop(`["a","a"]`)), upd("a", waitOK), begin("l")),
			errs: []want{{typ: VE, line: 1, path: "operation.Loop.operations[1]", op: "l", msg: "operation a appears twice in operations (first at operations[0])"}},
		},
		{
			name: "cycle through a loop and a conditional",
			doc:  doc(upd("a", loop(`["b"]`)), upd("b", cond(`["a"]`, "")), begin("a")),
			errs: []want{
				{typ: VE, line: 2, path: "operation.Conditional.ifTrue[0]", op: "b", msg: "operations form a cycle: a -> b -> a", sugg: "remove a from the ifTrue of b"},
				{typ: VE, line: 3, path: "operationOrder[0]", msg: "operation a is in operationOrder and in the ifTrue of b"},
			},
		},
		{
			name: "a loop that runs itself",
			doc:  doc(upd("a", loop(`["a"]`)), begin("a")),
			errs: []want{
				{typ: VE, line: 1, path: "operation.Loop.operations[0]", op: "a", msg: "operations form a cycle: a -> a"},
				{typ: VE, line: 2, path: "operationOrder[0]", msg: "operation a is in operationOrder and in the operations of a"},
			},
		},
		{
			name: "unreachable cycle is reported once, with warnings for both",
			doc:  doc(upd("w", waitOK), upd("a", cond(`["b"]`, "")), upd("b", cond(`["a"]`, "")), begin("w")),
			errs: []want{{typ: VE, line: 3, path: "operation.Conditional.ifTrue[0]", op: "b", msg: "a -> b -> a"}},
			warns: []want{
				{typ: VE, line: 2, path: "operationId", op: "a", msg: "never runs"},
				{typ: VE, line: 3, path: "operationId", op: "b", msg: "never runs"},
			},
		},
		{
			name: "too many operations",
			doc:  doc(upd("a", waitOK), upd("b", waitOK), upd("c", waitOK), begin("a", "b", "c")),
			opts: func() validate.Options { o := opts(); o.Limits.MaxOperations = 2; return o },
			errs: []want{{typ: VE, line: 3, path: "", op: "c", msg: "the workflow defines 3 operations; at most 2 are allowed"}},
		},
		{
			name: "twenty operations are the default limit",
			doc:  doc(append(manyWaits(21), begin(waitIDs(21)...))...),
			errs: []want{{typ: VE, line: 21, op: "w20", msg: "defines 21 operations; at most 20"}},
		},
		{
			name: "a later update replaces the earlier definition",
			doc:  doc(upd("w", `{"Wait":{"duration":-1}}`), upd("w", waitOK), begin("w")),
		},
		{
			name: "loop maxIterations above the limit",
			doc:  doc(upd("l", `{"Loop":{"inputPath":"/input/x","operations":["w"],"maxIterations":5000}}`), upd("w", waitOK), begin("l")),
			errs: []want{{typ: VE, line: 1, path: "operation.Loop.maxIterations", op: "l", msg: "maxIterations 5000 is above the limit of 1000", sugg: "Leave maxIterations out"}},
		},
		{
			name: "loop maxIterations within a raised limit",
			doc:  doc(upd("l", `{"Loop":{"inputPath":"/input/x","operations":["w"],"maxIterations":5000}}`), upd("w", waitOK), begin("l")),
			opts: func() validate.Options { o := opts(); o.Limits.MaxLoopIterations = 5000; return o },
		},
	})
}

func manyWaits(n int) []string {
	var lines []string
	for _, id := range waitIDs(n) {
		lines = append(lines, upd(id, waitOK))
	}
	return lines
}

func waitIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("w%d", i)
	}
	return ids
}

func TestReportJSON(t *testing.T) {
	r := validate.Workflow(parseDoc(t, doc(upd("w", waitOK), begin("w"))), opts())
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"valid":true,"errors":[],"warnings":[]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if r.Err() != nil {
		t.Errorf("Err() of a valid report = %v", r.Err())
	}

	r = validate.Workflow(parseDoc(t, doc(upd("f", `{"ApiCall":{"method":"GET","url":"https://api.evil.com/","outputPath":"/workflow/r"}}`), begin("f", "nope"))), opts())
	if !r.Forbidden() {
		t.Fatalf("want forbidden: %s", dump(r.Errors))
	}
	e := r.Err()
	if e == nil || e.Kind != fault.PermissionDenied || e.SpecType() != PE || e.OperationID != "f" || e.Line != 1 {
		t.Errorf("Err() = %+v, want the PermissionError of f at line 1", e)
	}
	if errs, ok := e.Details["errors"].([]fault.Object); !ok || len(errs) != 2 {
		t.Errorf("Err() details = %v, want both errors", e.Details)
	}
}

func TestNilWorkflow(t *testing.T) {
	r := validate.Workflow(nil, opts())
	checkProblems(t, "errors", r.Errors, []want{{typ: VE, msg: "no workflow"}})
	if r.Valid || r.Warnings == nil {
		t.Errorf("nil workflow: %+v", r)
	}
}
