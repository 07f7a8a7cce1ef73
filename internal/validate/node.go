package validate

import (
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// A node is what validation learns of one defined operation from its config:
// the paths it reads and writes, the operations it runs, the hosts and
// credentials it uses. Configs are decoded leniently here; strictness is the
// factories' job, so a field this decoder cannot read is simply not checked.
type node struct {
	id   string
	name string // operation name, as written
	desc string // name plus its mode, for messages: "TransformData group"
	line int

	known bool // in the catalog

	reads []read

	out             *a2e.Path // outputPath, when given and valid
	outKeys         pathKeys
	outType         typ
	outFollowsInput bool // TransformData select: an array when its input is

	conditional bool
	loop        bool
	concurrent  bool   // Loop with concurrency > 1: body writes stay in overlays
	bodies      []body // ifTrue/ifFalse, or the Loop's operations
	maxIter     int    // Loop maxIterations, 0 when not given

	url   string // ApiCall url, as written
	creds []credUse
	agent string // InvokeAgent agent, as written
}

// read is one data-model path an operation reads.
type read struct {
	path  a2e.Path
	keys  pathKeys
	at    string // JSON path of the field in the message
	need  need
	input bool // the operation's main input
}

// need is what a reader requires of the value it reads.
type need int

const (
	needAny need = iota
	needArray
	needNotArray // deepMerge sources are objects
)

// body is one list of nested operation ids.
type body struct {
	field string // ifTrue, ifFalse or operations
	at    string // JSON path of the list: operation.Conditional.ifTrue
	ids   []string
}

// credUse is one credentialRef in an ApiCall.
type credUse struct {
	id string
	at string
}

// typ is the static type of a value in the data model, when it is known.
type typ int

const (
	tUnknown typ = iota
	tArray
	tObject
	tNumber
)

func (t typ) String() string {
	switch t {
	case tArray:
		return "an array"
	case tObject:
		return "an object"
	case tNumber:
		return "a number"
	}
	return "a value of unknown type"
}

// path fields of the message the problems point at.
const (
	pathOperation = "operation"
	pathOrder     = "operationOrder"
	pathID        = "operationId"
)

// invalid is a ValidationError at a line and JSON path of one operation.
func invalid(n *node, at, format string, args ...any) *fault.Error {
	return fault.Typed(fault.Invalid, fault.ValidationError, format, args...).WithOp(n.id).At(n.line, at)
}

// forbidden is a PermissionError at a line and JSON path of one operation.
func forbidden(n *node, at, format string, args ...any) *fault.Error {
	return fault.Typed(fault.PermissionDenied, fault.PermissionError, format, args...).WithOp(n.id).At(n.line, at)
}

// warning is a warning at a line and JSON path of one operation. Its type is
// the one the problem would have at run time.
func warning(n *node, typ, at, format string, args ...any) *fault.Error {
	return fault.Typed(fault.Invalid, typ, format, args...).WithOp(n.id).At(n.line, at)
}

// addPath records a read of the path s at the JSON path at; a path that does not
// parse is left to the operation's factory, which reports it.
func (n *node) addPath(s, at string, nd need, input bool) {
	if s == "" {
		return
	}
	p, err := a2e.ParsePath(s)
	if err != nil {
		return
	}
	n.reads = append(n.reads, read{path: p, keys: keysOf(p), at: at, need: nd, input: input})
}

// addTemplate records the references of a string that may hold {/workflow/...}.
func (n *node) addTemplate(s, at string) {
	t, err := a2e.ParseTemplate(s)
	if err != nil {
		return
	}
	for _, p := range t.Refs() {
		n.reads = append(n.reads, read{path: p, keys: keysOf(p), at: at})
	}
}

// setOut records the outputPath s, when it is valid and under /workflow.
func (n *node) setOut(s string, t typ) {
	if s == "" {
		return
	}
	p, err := a2e.ParsePath(s)
	if err != nil || p.Root != a2e.RootWorkflow {
		return
	}
	n.setOutPath(p, t)
}

func (n *node) setOutPath(p a2e.Path, t typ) {
	n.out, n.outKeys, n.outType = &p, keysOf(p), t
}

// output is the write n makes, of type t.
func (n *node) output(t typ) write {
	return write{path: *n.out, keys: n.outKeys, n: n, t: t}
}
