package validate_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/validate"
)

// Writers of known type for the table.
const (
	groupUsers = `{"TransformData":{"inputPath":"/workflow/users","transform":"group","config":{"field":"team"},"outputPath":"/workflow/by-team"}}`
	sumUsers   = `{"TransformData":{"inputPath":"/workflow/users","transform":"aggregate","config":{"operations":[{"op":"count","as":"n"}]},"outputPath":"/workflow/stats"}}`
)

func filterOn(path string) string {
	return `{"FilterData":{"inputPath":"` + path + `","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/out"}}`
}

func loopOn(path, ops string, extra string) string {
	return `{"Loop":{"inputPath":"` + path + `","operations":` + ops + extra + `}}`
}

func TestDataFlow(t *testing.T) {
	runTable(t, []tcase{
		{
			name: "read of a path nothing writes, with a near miss",
			doc:  doc(upd("fetch-users", fetchUsers), upd("f", filterOn("/workflow/usrs")), begin("fetch-users", "f")),
			warns: []want{{typ: DE, line: 2, path: "operation.FilterData.inputPath", op: "f",
				msg: "f reads /workflow/usrs, but no operation that runs before it writes that path", sugg: "did you mean /workflow/users?"}},
		},
		{
			name: "read of a path written later",
			doc:  doc(upd("fetch-users", fetchUsers), upd("filter-active", filterActive), begin("filter-active", "fetch-users")),
			warns: []want{{typ: DE, line: 2, path: "operation.FilterData.inputPath", op: "filter-active", msg: "reads /workflow/users",
				sugg: "Operation fetch-users writes /workflow/users; run it before filter-active"}},
		},
		{
			name: "an operation that reads its own output is not told to run before itself",
			doc:  doc(upd("f", `{"FilterData":{"inputPath":"/workflow/users","conditions":[],"outputPath":"/workflow/users"}}`), begin("f")),
			warns: []want{{typ: DE, line: 1, path: "operation.FilterData.inputPath", op: "f", msg: "reads /workflow/users",
				sugg: "Write /workflow/users with an earlier operation"}},
		},
		{
			name:  "read of a path nothing is near",
			doc:   doc(upd("s", `{"StoreData":{"inputPath":"/workflow/zzz","storage":"localStorage","key":"k"}}`), begin("s")),
			warns: []want{{typ: DE, line: 1, path: "operation.StoreData.inputPath", op: "s", msg: "reads /workflow/zzz", sugg: "pass it as input"}},
		},
		{
			name: "a write covers reads inside it, and a read of its parent",
			doc: doc(upd("fetch-users", fetchUsers),
				upd("b", `{"ApiCall":{"method":"GET","url":"https://api.example.com/x","outputPath":"/workflow/a/b"}}`),
				upd("c", `{"Conditional":{"condition":{"path":"/workflow/users[0].name","operator":"exists"},"ifTrue":["s"]}}`),
				upd("s", `{"StoreData":{"inputPath":"/workflow/a","storage":"localStorage","key":"k"}}`),
				begin("fetch-users", "b", "c")),
		},
		{
			name: "input paths are always readable",
			doc:  doc(upd("f", filterOn("/input/users")), upd("s", `{"StoreData":{"inputPath":"/input","storage":"file","key":"k"}}`), begin("f", "s")),
		},
		{
			name: "templates in url, headers, body and keys are reads",
			doc: doc(upd("f", `{"ApiCall":{"method":"POST","url":"https://api.example.com/u/{/workflow/uid}","headers":{"X-Trace":"t-{/workflow/trace}"},"body":{"a":["{/workflow/b1}"],"c":"{/input/ok}"},"outputPath":"/workflow/r"}}`),
				upd("s", `{"StoreData":{"inputPath":"/workflow/r","storage":"localStorage","key":"k-{/workflow/k}"}}`),
				upd("l", `{"LoadData":{"storage":"localStorage","key":"{/workflow/k2}","outputPath":"/workflow/x"}}`),
				begin("f", "s", "l")),
			warns: []want{
				{typ: DE, line: 1, path: "operation.ApiCall.body.a[0]", op: "f", msg: "reads /workflow/b1"},
				{typ: DE, line: 1, path: "operation.ApiCall.headers[\"X-Trace\"]", op: "f", msg: "reads /workflow/trace"},
				{typ: DE, line: 1, path: "operation.ApiCall.url", op: "f", msg: "reads /workflow/uid"},
				{typ: DE, line: 2, path: "operation.StoreData.key", op: "s", msg: "reads /workflow/k"},
				{typ: DE, line: 3, path: "operation.LoadData.key", op: "l", msg: "reads /workflow/k2"},
			},
		},
		{
			name: "condition paths and path values are reads",
			doc: doc(upd("c", `{"Conditional":{"condition":{"path":"/workflow/n","operator":">","value":{"path":"/workflow/m"}},"ifTrue":["f"]}}`),
				upd("f", `{"FilterData":{"inputPath":"/input/x","conditions":[{"field":"a","operator":"in","value":{"path":"/workflow/allowed"}}],"outputPath":"/workflow/o"}}`),
				begin("c")),
			warns: []want{
				{typ: DE, line: 1, path: "operation.Conditional.condition.path", op: "c", msg: "reads /workflow/n"},
				{typ: DE, line: 1, path: "operation.Conditional.condition.value.path", op: "c", msg: "reads /workflow/m"},
				{typ: DE, line: 2, path: "operation.FilterData.conditions[0].value.path", op: "f", msg: "reads /workflow/allowed"},
			},
		},
		{
			name:  "merge sources are reads",
			doc:   doc(upd("fetch-users", fetchUsers), upd("m", `{"MergeData":{"sources":["/workflow/users","/workflow/more"],"strategy":"concat","outputPath":"/workflow/all"}}`), begin("fetch-users", "m")),
			warns: []want{{typ: DE, line: 2, path: "operation.MergeData.sources[1]", op: "m", msg: "reads /workflow/more"}},
		},
		{
			name: "loop item and index inside the body only",
			doc: doc(upd("l", loopOn("/input/xs", `["s","t"]`, "")),
				upd("s", `{"StoreData":{"inputPath":"/workflow/item.name","storage":"localStorage","key":"k{/workflow/index}"}}`),
				upd("t", `{"StoreData":{"inputPath":"/workflow/item","storage":"localStorage","key":"k"}}`),
				upd("u", `{"StoreData":{"inputPath":"/workflow/item","storage":"localStorage","key":"k"}}`),
				begin("l", "u")),
			warns: []want{{typ: DE, line: 4, path: "operation.StoreData.inputPath", op: "u", msg: "reads /workflow/item"}},
		},
		{
			name: "a branch's writes count after the conditional",
			doc: doc(upd("c", `{"Conditional":{"condition":{"path":"/input/n","operator":"exists"},"ifTrue":["fetch-users"]}}`),
				upd("fetch-users", fetchUsers), upd("filter-active", filterActive), begin("c", "filter-active")),
		},
		{
			name: "a sequential loop's body writes count after it; a concurrent loop's do not",
			doc: doc(upd("l1", loopOn("/input/xs", `["a"]`, "")),
				upd("a", `{"ApiCall":{"method":"GET","url":"https://api.example.com/x","outputPath":"/workflow/seq"}}`),
				upd("l2", loopOn("/input/xs", `["b"]`, `,"concurrency":4,"outputPath":"/workflow/all"`)),
				upd("b", `{"ApiCall":{"method":"GET","url":"https://api.example.com/x","outputPath":"/workflow/par"}}`),
				upd("s1", `{"StoreData":{"inputPath":"/workflow/seq","storage":"localStorage","key":"k"}}`),
				upd("s2", `{"StoreData":{"inputPath":"/workflow/par","storage":"localStorage","key":"k"}}`),
				upd("s3", `{"StoreData":{"inputPath":"/workflow/all","storage":"localStorage","key":"k"}}`),
				begin("l1", "l2", "s1", "s2", "s3")),
			warns: []want{{typ: DE, line: 6, path: "operation.StoreData.inputPath", op: "s2", msg: "reads /workflow/par",
				sugg: "Operation b writes /workflow/par; run it before s2"}},
		},
		{
			name: "a conditional's output is readable in its branches",
			doc: doc(upd("c", `{"Conditional":{"condition":{"path":"/input/n","operator":"exists"},"ifTrue":["s"],"outputPath":"/workflow/branch"}}`),
				upd("s", `{"StoreData":{"inputPath":"/workflow/branch","storage":"localStorage","key":"k"}}`), begin("c")),
		},
		{
			name:  "an unreachable operation's reads are not checked",
			doc:   doc(upd("w", waitOK), upd("f", filterOn("/workflow/none")), begin("w")),
			warns: []want{{typ: VE, line: 2, path: "operationId", op: "f", msg: "never runs"}},
		},
	})
}

func TestTypes(t *testing.T) {
	cond := func(op, value string) string {
		return `{"Conditional":{"condition":{"path":"/input/n","operator":"` + op + `","value":` + value + `},"ifTrue":[]}}`
	}
	filterCond := func(op, value string) string {
		return `{"FilterData":{"inputPath":"/input/xs","conditions":[{"field":"a","operator":"==","value":1},{"field":"b","operator":"` + op + `","value":` + value + `}],"outputPath":"/workflow/o"}}`
	}
	runTable(t, []tcase{
		{
			name: "FilterData fed by a group (object)",
			doc:  doc(upd("fetch-users", fetchUsers), upd("g", groupUsers), upd("f", filterOn("/workflow/by-team")), begin("fetch-users", "g", "f")),
			errs: []want{{typ: VE, line: 3, path: "operation.FilterData.inputPath", op: "f",
				msg: "FilterData reads /workflow/by-team as an array, but operation g (TransformData group) writes an object there", sugg: "change g to write one"}},
		},
		{
			name: "Loop fed by a Conditional's output",
			doc: doc(upd("c", `{"Conditional":{"condition":{"path":"/input/n","operator":"exists"},"ifTrue":[],"outputPath":"/workflow/c"}}`),
				upd("l", loopOn("/workflow/c", `["w"]`, "")), upd("w", waitOK), begin("c", "l")),
			errs: []want{{typ: VE, line: 2, path: "operation.Loop.inputPath", op: "l", msg: "operation c (Conditional) writes an object there"}},
		},
		{
			name: "sort fed by an aggregate without groupBy; with groupBy it is an array",
			doc: doc(upd("fetch-users", fetchUsers), upd("a", sumUsers),
				upd("s", `{"TransformData":{"inputPath":"/workflow/stats","transform":"sort","config":{"field":"n"},"outputPath":"/workflow/s"}}`),
				upd("a2", `{"TransformData":{"inputPath":"/workflow/users","transform":"aggregate","config":{"groupBy":"team","operations":[{"op":"count","as":"n"}]},"outputPath":"/workflow/stats2"}}`),
				upd("m", `{"TransformData":{"inputPath":"/workflow/stats2","transform":"map","config":{"expression":"item.n"},"outputPath":"/workflow/m"}}`),
				begin("fetch-users", "a", "s", "a2", "m")),
			errs: []want{{typ: VE, line: 3, path: "operation.TransformData.inputPath", op: "s", msg: "TransformData sort reads /workflow/stats as an array, but operation a (TransformData aggregate) writes an object"}},
		},
		{
			name: "deepMerge of an array",
			doc: doc(upd("fetch-users", fetchUsers), upd("filter-active", filterActive),
				upd("m", `{"MergeData":{"sources":["/workflow/users","/workflow/active"],"strategy":"deepMerge","outputPath":"/workflow/m"}}`),
				begin("fetch-users", "filter-active", "m")),
			errs: []want{{typ: VE, line: 3, path: "operation.MergeData.sources[1]", op: "m", msg: "MergeData deepMerge merges objects, but operation filter-active (FilterData) writes an array at /workflow/active", sugg: "concat"}},
		},
		{
			name: "merge outputs: concat is an array, deepMerge an object",
			doc: doc(upd("fetch-users", fetchUsers), upd("g", groupUsers),
				upd("m1", `{"MergeData":{"sources":["/workflow/users","/workflow/users"],"strategy":"union","outputPath":"/workflow/u"}}`),
				upd("m2", `{"MergeData":{"sources":["/workflow/by-team","/workflow/by-team"],"strategy":"deepMerge","outputPath":"/workflow/d"}}`),
				upd("f1", filterOn("/workflow/u")), upd("f2", filterOn("/workflow/d")),
				begin("fetch-users", "g", "m1", "m2", "f1", "f2")),
			errs: []want{{typ: VE, line: 6, path: "operation.FilterData.inputPath", op: "f2", msg: "operation m2 (MergeData deepMerge) writes an object"}},
		},
		{
			name: "select follows its input",
			doc: doc(upd("fetch-users", fetchUsers), upd("filter-active", filterActive), upd("g", groupUsers),
				upd("s1", `{"TransformData":{"inputPath":"/workflow/active","transform":"select","config":{"fields":["a"]},"outputPath":"/workflow/s1"}}`),
				upd("s2", `{"TransformData":{"inputPath":"/workflow/by-team","transform":"select","config":{"fields":["a"]},"outputPath":"/workflow/s2"}}`),
				upd("d", `{"MergeData":{"sources":["/workflow/s1","/workflow/s2"],"strategy":"deepMerge","outputPath":"/workflow/d"}}`),
				begin("fetch-users", "filter-active", "g", "s1", "s2", "d")),
			errs: []want{{typ: VE, line: 6, path: "operation.MergeData.sources[0]", op: "d", msg: "operation s1 (TransformData select) writes an array"}},
		},
		{
			name: "a loop's output is an array; unknown writers are never wrong",
			doc: doc(upd("l", loopOn("/input/xs", `["w"]`, `,"outputPath":"/workflow/l"`)), upd("w", waitOK),
				upd("fetch-users", fetchUsers),
				upd("d", `{"MergeData":{"sources":["/workflow/l","/workflow/users"],"strategy":"deepMerge","outputPath":"/workflow/d"}}`),
				begin("l", "fetch-users", "d")),
			errs: []want{{typ: VE, line: 4, path: "operation.MergeData.sources[0]", op: "d", msg: "operation l (Loop) writes an array"}},
		},
		{
			name: "branches that disagree leave the type unknown; branches that agree keep it",
			doc: doc(upd("fetch-users", fetchUsers),
				upd("c", `{"Conditional":{"condition":{"path":"/input/n","operator":"exists"},"ifTrue":["g1","g3"],"ifFalse":["f1","g4"]}}`),
				upd("g1", `{"TransformData":{"inputPath":"/workflow/users","transform":"group","config":{"field":"a"},"outputPath":"/workflow/x"}}`),
				upd("f1", `{"FilterData":{"inputPath":"/workflow/users","conditions":[],"outputPath":"/workflow/x"}}`),
				upd("g3", `{"TransformData":{"inputPath":"/workflow/users","transform":"group","config":{"field":"a"},"outputPath":"/workflow/y"}}`),
				upd("g4", `{"TransformData":{"inputPath":"/workflow/users","transform":"group","config":{"field":"b"},"outputPath":"/workflow/y"}}`),
				upd("fx", filterOn("/workflow/x")), upd("fy", filterOn("/workflow/y")),
				begin("fetch-users", "c", "fx", "fy")),
			errs: []want{{typ: VE, line: 8, path: "operation.FilterData.inputPath", op: "fy", msg: "writes an object there"}},
		},
		{
			name: "a write in one branch only, or in a loop body, has no type after it",
			doc: doc(upd("fetch-users", fetchUsers),
				upd("c", `{"Conditional":{"condition":{"path":"/input/n","operator":"exists"},"ifTrue":["g1"]}}`),
				upd("g1", `{"TransformData":{"inputPath":"/workflow/users","transform":"group","config":{"field":"a"},"outputPath":"/workflow/x"}}`),
				upd("l", loopOn("/input/xs", `["g2"]`, "")),
				upd("g2", `{"TransformData":{"inputPath":"/workflow/users","transform":"group","config":{"field":"a"},"outputPath":"/workflow/y"}}`),
				upd("fx", filterOn("/workflow/x")), upd("fy", filterOn("/workflow/y")),
				begin("fetch-users", "c", "l", "fx", "fy")),
		},
		{
			name: "the loop index is a number",
			doc:  doc(upd("l", loopOn("/input/xs", `["f"]`, "")), upd("f", filterOn("/workflow/index")), begin("l")),
			errs: []want{{typ: VE, line: 2, path: "operation.FilterData.inputPath", op: "f", msg: "but the loop writes a number there"}},
		},
		{
			name: "a later writer replaces the type",
			doc: doc(upd("fetch-users", fetchUsers), upd("g", groupUsers),
				upd("r", `{"FilterData":{"inputPath":"/workflow/users","conditions":[],"outputPath":"/workflow/by-team"}}`),
				upd("f", filterOn("/workflow/by-team")), begin("fetch-users", "g", "r", "f")),
		},
		{
			name: "in needs an array value",
			doc:  doc(upd("f", filterCond("in", `"a"`)), begin("f")),
			errs: []want{{typ: VE, line: 1, path: "operation.FilterData.conditions[1].value", op: "f", msg: "operator in needs an array value, not a string", sugg: `["a", "b"]`}},
		},
		{
			name: "startsWith and endsWith need a string value",
			doc:  doc(upd("f", filterCond("startsWith", `5`)), upd("g", cond("endsWith", `["x"]`)), begin("f", "g")),
			errs: []want{
				{typ: VE, line: 1, path: "operation.FilterData.conditions[1].value", op: "f", msg: "operator startsWith compares strings; the value must be a string, not a number"},
				{typ: VE, line: 2, path: "operation.Conditional.condition.value", op: "g", msg: "operator endsWith compares strings; the value must be a string, not an array"},
			},
		},
		{
			name: "ordering operators need a number or a string",
			doc: doc(upd("a", filterCond(">", `true`)), upd("b", filterCond("<=", `{"x":1}`)), upd("c", cond(">=", `[1]`)), upd("d", cond("<", `null`)),
				upd("e", cond(">", `"2024-01-01"`)), upd("f", filterCond("<", `3.5`)), begin("a", "b", "c", "d", "e", "f")),
			errs: []want{
				{typ: VE, line: 1, path: "operation.FilterData.conditions[1].value", op: "a", msg: "operator > compares numbers or strings; the value must be one, not a boolean"},
				{typ: VE, line: 2, path: "operation.FilterData.conditions[1].value", op: "b", msg: "operator <= compares numbers or strings; the value must be one, not an object"},
				{typ: VE, line: 3, path: "operation.Conditional.condition.value", op: "c", msg: "not an array"},
				{typ: VE, line: 4, path: "operation.Conditional.condition.value", op: "d", msg: "not null"},
			},
		},
		{
			name: "exists and empty are for Conditional only",
			doc:  doc(upd("f", filterCond("exists", `null`)), upd("g", cond("empty", `null`)), begin("f", "g")),
			errs: []want{{typ: VE, line: 1, path: "operation.FilterData.conditions[1].operator", op: "f", msg: "operator exists is only for Conditional conditions, not FilterData", sugg: "!="}},
		},
		{
			name: "unknown operator, with a near miss",
			doc:  doc(upd("f", filterCond("=", `1`)), upd("g", cond("exist", `1`)), begin("f", "g")),
			errs: []want{
				{typ: VE, line: 1, path: "operation.FilterData.conditions[1].operator", op: "f", msg: `unknown operator "="`, sugg: "did you mean ==?"},
				{typ: VE, line: 2, path: "operation.Conditional.condition.operator", op: "g", msg: `unknown operator "exist"`, sugg: "did you mean exists?"},
			},
		},
		{
			name: "contains takes any value; a path value skips the literal check",
			doc: doc(upd("f", filterCond("contains", `5`)), upd("g", cond("in", `{"path":"/input/list"}`)),
				upd("h", filterCond("startsWith", `{"path":"/input/p"}`)), begin("f", "g", "h")),
		},
	})
}

// Types are checked in every place an operation runs from.
func TestTypesInsideBodies(t *testing.T) {
	d := doc(upd("fetch-users", fetchUsers), upd("g", groupUsers),
		upd("l", loopOn("/workflow/users", `["f"]`, "")), upd("f", filterOn("/workflow/by-team")),
		begin("fetch-users", "g", "l"))
	r := validate.Workflow(parseDoc(t, d), opts())
	checkProblems(t, "errors", r.Errors, []want{{typ: VE, line: 4, path: "operation.FilterData.inputPath", op: "f", msg: "operation g (TransformData group)"}})
}
