package validate

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Options say what the workflow is checked against.
type Options struct {
	// Env is the catalog and the operations this account may build; each defined
	// operation's config is checked by building it with Env's factories (with every
	// host and credential granted: those are checked against Permissions). Nil: the
	// spec's catalog, every operation allowed, configs checked by a2e.DecodeConfig
	// (JSON types and required fields only).
	Env *op.Environment
	// Permissions are the account's grants for hosts and credentials. Nil means
	// no account (plain `sluice validate`): host and credential checks are skipped.
	// Operations are allowed or not by Env alone.
	Permissions *policy.Permissions
	// AllowHost allows a host beyond Permissions (sluice run --allow-egress, or the
	// hosts implied by an `apis` grant). May be nil.
	AllowHost func(host, port string) bool
	// PrivateAllowed says whether the server's egress rule allows a private,
	// loopback or link-local host as written (egress.allow_private, or
	// sluice run --allow-egress); such hosts get no warning. May be nil.
	PrivateAllowed func(host, port string) bool
	// Limits bound the workflow; zero fields take the defaults of RESOLUTIONS.
	Limits Limits
	// CredentialHosts returns the hosts a credential is bound to (empty:
	// unbound or unknown), so that a bound credential sent to a literal host
	// outside its binding is refused here. May be nil: the send-time check
	// (which also covers plans compiled before a binding changed) remains.
	CredentialHosts func(id string) []string
}

// Limits are the workflow limits validation enforces.
type Limits struct {
	MaxOperations     int // operation definitions; default 20
	MaxLoopIterations int // a Loop's maxIterations above it is an error; default 1000
	// Document bounds the decoder (size, line length, messages); zero fields take
	// protocol/a2e's defaults (1 MiB documents).
	Document a2e.Limits
}

// Default limits of RESOLUTIONS.
const (
	DefaultMaxOperations     = 20
	DefaultMaxLoopIterations = 1000
)

func (l Limits) withDefaults() Limits {
	if l.MaxOperations <= 0 {
		l.MaxOperations = DefaultMaxOperations
	}
	if l.MaxLoopIterations <= 0 {
		l.MaxLoopIterations = DefaultMaxLoopIterations
	}
	return l
}

// Report is the validate response body of the spec: {valid, errors, warnings}.
type Report struct {
	Valid    bool           `json:"valid"`
	Errors   []fault.Object `json:"errors"`   // never null
	Warnings []fault.Object `json:"warnings"` // never null
	// Workflow is the decoded workflow, nil when the document could not be decoded
	// at all. It is set even when the report has errors.
	Workflow *a2e.Workflow `json:"-"`
	// Built holds, by operation id, the operations that were built with Env itself
	// (the account's grants and services) without error, so a compiler can reuse
	// them instead of building each one again. Operations that needed the
	// all-granting copy of Env to report their config problems are absent.
	Built map[string]op.Operation `json:"-"`
}

// Forbidden reports whether any error is a PermissionError: the server answers 403
// rather than 400.
func (r *Report) Forbidden() bool {
	for _, e := range r.Errors {
		if e.Type == fault.PermissionError {
			return true
		}
	}
	return false
}

// Err returns the report's errors as one *fault.Error for callers that need an
// error value (nil when valid): the first error, with the others as details.
func (r *Report) Err() *fault.Error {
	if r.Valid || len(r.Errors) == 0 {
		return nil
	}
	first := r.Errors[0]
	kind := fault.Invalid
	if r.Forbidden() {
		kind = fault.PermissionDenied
		for _, e := range r.Errors {
			if e.Type == fault.PermissionError {
				first = e
				break
			}
		}
	}
	fe := fault.Typed(kind, first.Type, "%s", first.Message).WithOp(first.OperationID).At(first.Line, first.Path)
	fe.Suggestions = first.Suggestions
	fe.WithDetail("errors", r.Errors)
	return fe
}

// Document validates a JSONL workflow document.
func Document(doc []byte, o Options) *Report {
	wf, errs := a2e.Parse(doc, o.Limits.Document)
	return check(wf, errs, o)
}

// Field validates the REST "workflow" field: a JSON string holding a JSONL
// document, or a JSON array of message objects.
func Field(field json.RawMessage, o Options) *Report {
	wf, errs := a2e.ParseAny(field, o.Limits.Document)
	return check(wf, errs, o)
}

// Messages validates a workflow given as a list of message objects (a JSON
// array's elements), each decoded once by a2e.ParseMessages.
func Messages(msgs []json.RawMessage, o Options) *Report {
	wf, errs := a2e.ParseMessages(msgs, o.Limits.Document)
	return check(wf, errs, o)
}

// Values validates a workflow the server built as values, not read from
// text: docErrs are what a2e.EncodeDocument found in its document (ids,
// sizes), so it meets the bounds a document does.
func Values(wf *a2e.Workflow, docErrs []*a2e.Error, o Options) *Report {
	return check(wf, docErrs, o)
}

// Workflow validates an already decoded workflow.
func Workflow(wf *a2e.Workflow, o Options) *Report {
	return check(wf, nil, o)
}

func check(wf *a2e.Workflow, parseErrs []*a2e.Error, o Options) *Report {
	o.Limits = o.Limits.withDefaults()
	c := &collector{}
	// Operations whose message could not be decoded are missing from wf; a
	// reference to one is not reported again as undefined.
	broken := map[string]bool{}
	for _, e := range parseErrs {
		c.err(fromCodec(e))
		if e.OperationID != "" {
			broken[e.OperationID] = true
		}
	}
	switch {
	case wf != nil:
		if !hasBegin(wf) && len(parseErrs) == 0 {
			c.err(fault.Typed(fault.Invalid, fault.ValidationError, "the workflow has no beginExecution").
				WithSuggestions("End the workflow with one beginExecution naming the operations to run"))
		}
		run(wf, broken, o, c)
	case len(parseErrs) == 0:
		c.err(fault.Typed(fault.Invalid, fault.ValidationError, "no workflow was given").
			WithSuggestions("Send operationUpdate messages, then one beginExecution"))
	}
	return c.report(wf)
}

// hasBegin reports whether wf has a beginExecution that could be read.
func hasBegin(wf *a2e.Workflow) bool {
	return wf.BeginLine > 0 || len(wf.Begin.OperationOrder) > 0
}

// fromCodec converts a problem of the protocol/a2e codec.
func fromCodec(e *a2e.Error) *fault.Error {
	return fault.Typed(fault.Invalid, fault.ValidationError, "%s", e.Message).
		At(e.Line, e.Path).WithOp(e.OperationID).WithSuggestions(e.Suggestions...).WithCause(e.Cause)
}

// run applies the five levels in the spec's order; the collector keeps the first
// report of a problem at one place, so the earliest level wins.
func run(wf *a2e.Workflow, broken map[string]bool, o Options, c *collector) {
	ids := definedIDs(wf)
	nodes := decodeAll(wf, ids, o, c) // structure (factories) and catalog
	checkPermissions(ids, nodes, o, c)
	checkDependencies(wf, ids, nodes, broken, o, c)
	checkDataFlow(wf, ids, nodes, c) // dependency (paths) and type (writers)
}

// collector gathers problems and renders them stably.
type collector struct {
	built        map[string]op.Operation // operations built with the account's own Env
	errs, warns  []*fault.Error
	dropE, dropW int // problems beyond maxProblems
	suggestCost  int // edit-distance work spent on suggestions
}

// maxProblems bounds each list of a report: a hostile document must not produce
// an unbounded report. The decoder stops at 100 problems of its own.
const maxProblems = 200

func (c *collector) err(e *fault.Error) {
	switch {
	case e == nil:
	case len(c.errs) >= maxProblems:
		c.dropE++
	default:
		c.errs = append(c.errs, e)
	}
}

func (c *collector) warn(e *fault.Error) {
	switch {
	case e == nil:
	case len(c.warns) >= maxProblems:
		c.dropW++
	default:
		c.warns = append(c.warns, e)
	}
}

// warnsFull says whether further warnings would be dropped, so callers can skip
// the work of making them.
func (c *collector) warnsFull() bool { return len(c.warns) >= maxProblems }

// errorsOf flattens err (a *fault.Error or the codec's *a2e.Error, an errors.Join
// or a2e.ErrorList of them, or anything else) into *fault.Error values; a foreign
// error becomes fallback with err as cause, so nothing internal reaches the report.
func errorsOf(err error, fallback func() *fault.Error) []*fault.Error {
	if err == nil {
		return nil
	}
	if multi, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*fault.Error
		for _, e := range multi.Unwrap() {
			out = append(out, errorsOf(e, fallback)...)
		}
		return out
	}
	var fe *fault.Error
	if errors.As(err, &fe) {
		return []*fault.Error{fe}
	}
	var ce *a2e.Error
	if errors.As(err, &ce) {
		return []*fault.Error{fromCodec(ce)}
	}
	return []*fault.Error{fallback().WithCause(err)}
}

type problemKey struct {
	typ, op, path string
	line          int
	msg           string
}

func (c *collector) report(wf *a2e.Workflow) *Report {
	// Errors: one per place (the same place reported by two levels, or by the
	// decoder and a factory, is one problem). Warnings: drop exact repeats, which
	// come from an operation reached from two bodies.
	errs := dedupe(c.errs, func(e *fault.Error) problemKey {
		return problemKey{typ: e.SpecType(), op: e.OperationID, path: e.Path, line: e.Line}
	})
	warns := dedupe(c.warns, func(e *fault.Error) problemKey {
		return problemKey{op: e.OperationID, path: e.Path, line: e.Line, msg: e.Message}
	})
	r := &Report{
		Errors:   render(errs),
		Warnings: render(warns),
		Workflow: wf,
		Built:    c.built,
	}
	// The note on dropped problems goes last, after the sorted ones.
	if c.dropE > 0 {
		r.Errors = append(r.Errors, fault.Typed(fault.Invalid, fault.ValidationError,
			"too many problems; %d more errors are not reported", c.dropE).Object())
	}
	if c.dropW > 0 {
		r.Warnings = append(r.Warnings, fault.Typed(fault.Invalid, fault.ValidationError,
			"too many problems; %d more warnings are not reported", c.dropW).Object())
	}
	r.Valid = len(r.Errors) == 0
	return r
}

func dedupe(in []*fault.Error, key func(*fault.Error) problemKey) []*fault.Error {
	seen := make(map[problemKey]bool, len(in))
	out := make([]*fault.Error, 0, len(in))
	for _, e := range in {
		k := key(e)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

// render sorts by line, then path (then operation and message) so output is stable.
func render(in []*fault.Error) []fault.Object {
	out := make([]fault.Object, 0, len(in))
	for _, e := range in {
		out = append(out, e.Object())
	}
	slices.SortStableFunc(out, func(a, b fault.Object) int {
		return cmp.Or(
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.OperationID, b.OperationID),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return out
}
