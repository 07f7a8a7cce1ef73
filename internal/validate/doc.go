// Package validate checks an A2E workflow before anything runs, at the spec's five
// levels: structure, catalog, permission, dependency and type. It collects every
// problem it finds (it never stops at the first) as the spec's error object with the
// line, operationId and JSON path of the problem, so an agent can fix a whole
// document in one round trip.
//
// Problems that make the workflow unrunnable or forbidden are errors; problems that
// may only show at run time (a path no earlier operation writes, an operation that
// never runs, a private address) are warnings, and a workflow with warnings only is
// valid. Errors and warnings are sorted by line, then JSON path.
//
// # Levels
//
//  1. Structure: everything protocol/a2e's decoder reports, and each operation's
//     config as its factory (op.Environment.Build) judges it. Without an
//     environment, configs are decoded strictly by a2e.DecodeConfig instead.
//  2. Catalog: every operation name is known; an unknown one gets the catalog and
//     the nearest name as suggestions.
//  3. Permission: every operation is allowed by the environment; every literal
//     ApiCall host is granted (Permissions.AllowsHost or Options.AllowHost); every
//     credentialRef, in headers and body, is granted. These are PermissionErrors
//     (Report.Forbidden, HTTP 403). A host with a template is checked at dial
//     time. A literal private, loopback or link-local address (or localhost) is a
//     warning: the server's egress rule decides when the request is sent.
//  4. Dependency: operation ids in operationOrder and in Conditional and Loop
//     bodies exist and do not repeat within one list; nothing is both in the order
//     and in a body; no cycles; at most maxOperations definitions; every defined
//     operation runs from somewhere (else a warning); every data-model path read
//     is written earlier (else a warning).
//  5. Type: readers that need an array (FilterData, Loop, TransformData sort, group,
//     map, aggregate) are not fed by a writer known to write something else;
//     deepMerge sources are not known arrays; operators fit their literal values.
//
// # Decisions where the spec and RESOLUTIONS are silent
//
//   - The same operation id in two different bodies (ifTrue and ifFalse, or two
//     Conditionals) is allowed: each pass runs it at most once. The same id twice
//     in one list is an error, as in operationOrder.
//   - A write covers a read when either path lies inside the other: writing
//     /workflow/users covers reading /workflow/users[0].name, and writing
//     /workflow/a/b covers reading /workflow/a (which then holds an object).
//   - Writes in a Conditional's branches count after it (one of them may have run);
//     writes in a Loop's body count after it unless concurrency > 1 (iterations
//     then write their own overlays, and only the Loop's outputPath remains).
//   - Static types come from the last exact write of a path, and only when every
//     way to reach the read agrees: a write in one branch only, or in a loop body
//     (which may run zero times), has an unknown type afterwards. Writers' types:
//     FilterData, MergeData concat/union/intersect, TransformData sort/map and
//     aggregate with groupBy, and Loop write arrays; deepMerge, group, aggregate
//     without groupBy and Conditional write objects; select writes an array when
//     its input is one; ApiCall, LoadData and /input are unknown.
//   - `contains` accepts a value of any type (it tests array membership as well as
//     substrings); `in` needs an array; `startsWith`/`endsWith` a string; `>`, `<`,
//     `>=`, `<=` a number or a string (not an object, array, boolean or null);
//     `exists`/`empty` are Conditional only. A {"path": ...} value skips these
//     literal checks.
//   - Operations are allowed by Options.Env alone; Options.Permissions is used for
//     hosts and credentials (the `apis` grant's hosts come through AllowHost).
//   - A Loop maxIterations above the limit is an error, as the Loop factory says.
//   - A reference to an operation whose message could not be decoded is not
//     reported again as undefined; without a readable beginExecution, the order
//     checks (and the never-runs warnings) are skipped.
//   - Errors on the beginExecution line carry no operationId; an error reported at
//     the same line and JSON path by two levels is reported once (the first level
//     wins), so a factory and this package never report one problem twice.
package validate
