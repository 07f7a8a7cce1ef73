package a2e

import (
	"encoding/json"
	"slices"
)

// The legacy adapter reads documents in the shape of the reference implementation
// (RESOLUTIONS, "Compatibility"), so clients written for it work unchanged:
//
//	{"operationUpdate":{"workflowId":"w","operations":[{"id":"a","operation":{"ApiCall":{...}}}, ...]}}
//	{"beginExecution":{"workflowId":"w","root":"a"}}
//
// A document's shape is decided by its first message: one with a "type" key is
// canonical, one whose only key is "operationUpdate" or "beginExecution" is
// legacy; mixing the shapes is an error. Each legacy operation becomes one
// OperationUpdate (same line), and the legacy beginExecution becomes a canonical
// BeginExecution whose executionId is the workflowId and whose operationOrder is
// computed as the reference runs it:
//
//   - the root first (when given), then every other defined operation in order of
//     first definition, each once;
//   - except the operations nested in a Conditional's ifTrue/ifFalse or a Loop's
//     operations (read from the latest definitions of those operations): they run
//     only from there, so putting them in the order would run them twice.
//
// A later operation with the same id replaces the earlier one, as in the
// canonical shape. Errors name the line and the JSON path inside the legacy
// message ("operationUpdate.operations[1].id", "beginExecution.root").
// Workflow.Legacy tells the caller the document was legacy: its workflowId is
// usually a fixed name reused across different documents, so it is no
// idempotency key.

var (
	legacyKeys       = []string{TypeOperationUpdate, TypeBeginExecution}
	legacyUpdateKeys = []string{"workflowId", "operations"}
	legacyOpKeys     = []string{"id", "operation"}
	legacyBeginKeys  = []string{"workflowId", "root"}
)

// legacyState is what the adapter remembers between lines.
type legacyState struct {
	defined []string            // ids in order of first definition
	nested  map[string][]string // id -> ids its latest definition nests
}

func (ld *lineDecoder) decodeLegacy(line int, ms []member, byKey map[string][]byte, p *lineProblems) []result {
	if len(byKey) != 1 {
		names := memberNames(ms)
		p.add(errorf(line, "", "a legacy message must have exactly one key, operationUpdate or beginExecution; found %d (%s)",
			len(byKey), listNames(names)))
		unknownKeys(ms, legacyKeys, "", "a legacy message", p)
		return p.out
	}
	if raw, ok := byKey[TypeOperationUpdate]; ok {
		p.typ = TypeOperationUpdate
		return ld.legacyUpdate(line, raw, p)
	}
	p.typ = TypeBeginExecution
	if r, stop := ld.count(line); stop {
		return append(p.out, r)
	}
	return ld.legacyBegin(line, byKey[TypeBeginExecution], p)
}

func (ld *lineDecoder) legacyUpdate(line int, raw []byte, p *lineProblems) []result {
	const base = TypeOperationUpdate
	ms, err := members(raw)
	if err != nil {
		p.add(errorf(line, base, "operationUpdate must be an object, got %s", jsonKind(raw)))
		return p.out
	}
	byKey := indexMembers(ms, base, p)
	unknownKeys(ms, legacyUpdateKeys, base, "a legacy operationUpdate", p)
	if w, ok := byKey["workflowId"]; ok {
		if _, e := checkID(w, line, base+".workflowId", "workflowId"); e != nil {
			p.add(e)
		}
	}
	opsRaw, ok := byKey["operations"]
	if !ok {
		p.add(errorf(line, base+".operations", `missing required key "operations"`))
		return p.out
	}
	items, err := elements(opsRaw)
	if err != nil {
		p.add(errorf(line, base+".operations", "operations must be an array, got %s", jsonKind(opsRaw)))
		return p.out
	}
	var out []result
	for i, it := range items {
		if r, stop := ld.count(line); stop {
			return append(append(p.out, out...), r)
		}
		at := indexPath(base+".operations", i)
		ip := &lineProblems{line: line, typ: TypeOperationUpdate}
		id, op := legacyOperation(it, at, ip)
		if !ip.ok() {
			for _, r := range ip.out {
				p.add(r.err) // keeps the line's bound on problems
			}
			continue
		}
		if ld.legacy.nested == nil {
			ld.legacy.nested = map[string][]string{}
		}
		if _, seen := ld.legacy.nested[id]; !seen {
			ld.legacy.defined = append(ld.legacy.defined, id)
		}
		ld.legacy.nested[id] = nestedIDs(op)
		out = append(out, result{line: line, typ: TypeOperationUpdate, hasMsg: true,
			msg: Message{Line: line, OperationUpdate: &OperationUpdate{OperationID: id, Operation: op}}})
	}
	// Problems first, then the good operations: every problem is reported, and
	// the good operations still reach the workflow so the validator can check them.
	return append(p.out, out...)
}

// legacyOperation reads one {"id": ..., "operation": {...}} item.
func legacyOperation(raw []byte, at string, p *lineProblems) (string, Operation) {
	ms, err := members(raw)
	if err != nil {
		p.add(errorf(p.line, at, "each operation must be an object with id and operation, got %s", jsonKind(raw)))
		return "", Operation{}
	}
	byKey := indexMembers(ms, at, p)
	id := ""
	if r, ok := byKey["id"]; !ok {
		p.add(errorf(p.line, at+".id", `missing required key "id"`))
	} else if s, e := checkID(r, p.line, at+".id", "id"); e != nil {
		p.add(e)
	} else {
		id, p.id = s, s
	}
	unknownKeys(ms, legacyOpKeys, at, "a legacy operation", p)
	var op Operation
	if r, ok := byKey["operation"]; !ok {
		p.add(errorf(p.line, at+".operation", `missing required key "operation"`))
	} else {
		op = checkOperation(r, at+".operation", p)
	}
	return id, op
}

func (ld *lineDecoder) legacyBegin(line int, raw []byte, p *lineProblems) []result {
	const base = TypeBeginExecution
	ms, err := members(raw)
	if err != nil {
		p.add(errorf(line, base, "beginExecution must be an object, got %s", jsonKind(raw)))
		return p.out
	}
	byKey := indexMembers(ms, base, p)
	unknownKeys(ms, legacyBeginKeys, base, "a legacy beginExecution", p)
	var b BeginExecution
	if w, ok := byKey["workflowId"]; !ok {
		p.add(errorf(line, base+".workflowId", `missing required key "workflowId"`))
	} else if s, e := checkID(w, line, base+".workflowId", "workflowId"); e != nil {
		p.add(e)
	} else {
		b.ExecutionID = s
	}
	root := ""
	if r, ok := byKey["root"]; ok {
		s, e := checkID(r, line, base+".root", "root")
		switch {
		case e != nil:
			p.add(e)
		case !slices.Contains(ld.legacy.defined, s):
			p.add(errorf(line, base+".root", "root %q is not a defined operation", s).
				suggest(didYouMean(s, ld.legacy.defined)))
		default:
			root = s
		}
	}
	if !p.ok() {
		return p.out
	}
	b.OperationOrder = ld.legacy.order(root)
	if len(b.OperationOrder) == 0 {
		p.add(errorf(line, base, "the legacy workflow has no top-level operation to run").
			suggest("Define operations in an operationUpdate message before beginExecution"))
		return p.out
	}
	return []result{{line: line, typ: TypeBeginExecution, hasMsg: true, msg: Message{Line: line, BeginExecution: &b}}}
}

// order is the top-level order: root first, then the rest in definition order,
// leaving out every operation nested in a Conditional or Loop.
func (s *legacyState) order(root string) []string {
	nested := map[string]bool{}
	for _, id := range s.defined {
		for _, n := range s.nested[id] {
			nested[n] = true
		}
	}
	var out []string
	if root != "" && !nested[root] {
		out = append(out, root)
	}
	for _, id := range s.defined {
		if id != root && !nested[id] {
			out = append(out, id)
		}
	}
	return out
}

// nestedIDs reads the ids a Conditional or Loop runs. It is lenient on purpose: a
// malformed config is the validator's to report; here it only nests nothing.
func nestedIDs(op Operation) []string {
	switch op.Name {
	case OpConditional:
		var c struct {
			IfTrue  []string `json:"ifTrue"`
			IfFalse []string `json:"ifFalse"`
		}
		_ = json.Unmarshal(op.Config, &c)
		return append(c.IfTrue, c.IfFalse...)
	case OpLoop:
		var l struct {
			Operations []string `json:"operations"`
		}
		_ = json.Unmarshal(op.Config, &l)
		return l.Operations
	}
	return nil
}
