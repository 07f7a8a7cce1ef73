package a2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// MessageTypes lists the message types of a canonical document.
var MessageTypes = []string{TypeOperationUpdate, TypeBeginExecution}

// OnErrorValues lists the values beginExecution.onError accepts.
var OnErrorValues = []string{OnErrorStop, OnErrorContinue}

// IDPattern is the pattern of operationId and executionId (the spec's schemas).
const IDPattern = "^[a-zA-Z0-9_-]+$"

var (
	updateKeys = []string{"type", "operationId", "operation"}
	beginKeys  = []string{"type", "executionId", "operationOrder", "onError"}
)

// result is what one line yields: a message, or one problem. A line with several
// problems yields several results.
type result struct {
	line   int
	typ    string // the type the line was recognised as; "" when it could not be
	msg    Message
	hasMsg bool
	err    *Error
	fatal  bool // the document cannot be read further
}

// shape is the dialect of a document, decided by its first message.
type shape int

const (
	shapeUnknown shape = iota
	shapeCanonical
	shapeLegacy
)

func (s shape) String() string {
	if s == shapeLegacy {
		return "legacy"
	}
	return "canonical"
}

// lineDecoder turns the text of one message into results. It carries what must be
// known across lines: the document's shape, the message count and the legacy
// adapter's state. The streaming Decoder and ParseMessages share it.
type lineDecoder struct {
	lim       Limits
	shape     shape
	shapeLine int
	messages  int
	legacy    legacyState
}

// lineProblems collects the problems of one line, bounded by maxLineErrors.
type lineProblems struct {
	line int
	typ  string
	id   string
	out  []result
	n    int
}

func (p *lineProblems) add(e *Error) {
	p.n++
	if p.n > maxLineErrors {
		return
	}
	if e.OperationID == "" {
		e.OperationID = p.id
	}
	if p.n == maxLineErrors {
		e = errorf(p.line, "", "too many problems on this line; only the first %d are reported", maxLineErrors-1)
	}
	p.out = append(p.out, result{line: p.line, typ: p.typ, err: e})
}

func (p *lineProblems) ok() bool { return p.n == 0 }

// decode decodes one non-blank message. fatal is set when the document must stop
// here (too many messages).
func (ld *lineDecoder) decode(line int, data []byte) []result {
	p := &lineProblems{line: line}
	out := ld.decodeMessage(line, data, p)
	for i := range out { // problems found before the type was known belong to it too
		if out[i].typ == "" {
			out[i].typ = p.typ
		}
	}
	return out
}

func (ld *lineDecoder) decodeMessage(line int, data []byte, p *lineProblems) []result {
	if !json.Valid(data) {
		p.add(errorf(line, "", "%s", syntaxError(data)).
			suggest("Each line must be exactly one JSON object; JSON inside strings must be escaped"))
		return p.out
	}
	ms, err := members(data)
	if err != nil {
		p.add(errorf(line, "", "each message must be a JSON object, got %s", jsonKind(data)))
		return p.out
	}
	byKey := indexMembers(ms, "", p)

	sh := shapeCanonical
	if _, hasType := byKey["type"]; !hasType {
		_, u := byKey[TypeOperationUpdate]
		_, b := byKey[TypeBeginExecution]
		if !u && !b {
			p.add(errorf(line, "type", `missing required key "type"`).
				suggest(`Start each line with "type": "operationUpdate" or "type": "beginExecution"`))
			return p.out
		}
		sh = shapeLegacy
	}
	if ld.shape == shapeUnknown {
		ld.shape, ld.shapeLine = sh, line
	} else if sh != ld.shape {
		p.add(errorf(line, "", "this message has the %s shape, but the document began with the %s shape at line %d; a document must use one shape",
			sh, ld.shape, ld.shapeLine))
		return p.out
	}
	if sh == shapeLegacy {
		return ld.decodeLegacy(line, ms, byKey, p)
	}
	if r, stop := ld.count(line); stop {
		return append(p.out, r)
	}

	typRaw := byKey["type"]
	typ, isStr := rawString(typRaw)
	switch {
	case !isStr:
		p.add(errorf(line, "type", "type must be a string, got %s", jsonKind(typRaw)))
		return p.out
	case typ == TypeOperationUpdate:
		p.typ = typ
		return ld.decodeUpdate(line, ms, byKey, p)
	case typ == TypeBeginExecution:
		p.typ = typ
		return ld.decodeBegin(line, ms, byKey, p)
	}
	p.add(errorf(line, "type", "unknown message type %q", clip(typ)).
		suggest(didYouMean(typ, MessageTypes), "Valid types are operationUpdate and beginExecution"))
	return p.out
}

// count counts one message and reports a fatal problem past MaxMessages.
func (ld *lineDecoder) count(line int) (result, bool) {
	ld.messages++
	if ld.messages > ld.lim.MaxMessages {
		return result{line: line, fatal: true, err: tooManyMessages(line, ld.lim.MaxMessages)}, true
	}
	return result{}, false
}

// index maps keys to values, reporting duplicate keys (the first one is used).
func indexMembers(ms []member, base string, p *lineProblems) map[string][]byte {
	byKey := make(map[string][]byte, len(ms))
	for _, m := range ms {
		if _, dup := byKey[m.key]; dup {
			p.add(errorf(p.line, joinPath(base, m.key), "duplicate key %q", clip(m.key)))
			continue
		}
		byKey[m.key] = m.value
	}
	return byKey
}

// unknownKeys reports every key of ms that is not allowed.
func unknownKeys(ms []member, allowed []string, base, where string, p *lineProblems) {
	for _, m := range ms {
		if !slices.Contains(allowed, m.key) {
			p.add(errorf(p.line, joinPath(base, m.key), "unknown key %q in %s", clip(m.key), where).
				suggest(didYouMean(m.key, allowed), "Allowed keys: "+strings.Join(allowed, ", ")))
		}
	}
}

func (ld *lineDecoder) decodeUpdate(line int, ms []member, byKey map[string][]byte, p *lineProblems) []result {
	idRaw, hasID := byKey["operationId"]
	id := ""
	if !hasID {
		p.add(errorf(line, "operationId", `missing required key "operationId"`))
	} else if s, e := checkID(idRaw, line, "operationId", "operationId"); e != nil {
		p.add(e)
	} else {
		id, p.id = s, s
		for i := range p.out { // problems found before the id was known
			p.out[i].err.OperationID = s
		}
	}
	unknownKeys(ms, updateKeys, "", "an operationUpdate message", p)
	var op Operation
	if opRaw, ok := byKey["operation"]; !ok {
		p.add(errorf(line, "operation", `missing required key "operation"`).
			suggest(`Give the operation as "operation": {"<Name>": {<config>}}`))
	} else {
		op = checkOperation(opRaw, "operation", p)
	}
	if !p.ok() {
		return p.out
	}
	return []result{{line: line, typ: TypeOperationUpdate, hasMsg: true,
		msg: Message{Line: line, OperationUpdate: &OperationUpdate{OperationID: id, Operation: op}}}}
}

func (ld *lineDecoder) decodeBegin(line int, ms []member, byKey map[string][]byte, p *lineProblems) []result {
	var b BeginExecution
	if raw, ok := byKey["executionId"]; !ok {
		p.add(errorf(line, "executionId", `missing required key "executionId"`))
	} else if s, e := checkID(raw, line, "executionId", "executionId"); e != nil {
		p.add(e)
	} else {
		b.ExecutionID = s
	}
	unknownKeys(ms, beginKeys, "", "a beginExecution message", p)
	if raw, ok := byKey["operationOrder"]; !ok {
		p.add(errorf(line, "operationOrder", `missing required key "operationOrder"`).
			suggest(`List the operations to run: "operationOrder": ["op-1", "op-2"]`))
	} else {
		b.OperationOrder = checkOrder(raw, line, p)
	}
	if raw, ok := byKey["onError"]; ok {
		s, isStr := rawString(raw)
		switch {
		case !isStr:
			p.add(errorf(line, "onError", "onError must be a string, got %s", jsonKind(raw)))
		case !slices.Contains(OnErrorValues, s):
			p.add(errorf(line, "onError", `onError must be "stop" or "continue", got %q`, clip(s)).
				suggest(didYouMean(s, OnErrorValues)))
		default:
			b.OnError = s
		}
	}
	if !p.ok() {
		return p.out
	}
	return []result{{line: line, typ: TypeBeginExecution, hasMsg: true,
		msg: Message{Line: line, BeginExecution: &b}}}
}

// checkOrder reads operationOrder: a non-empty array of strings. Whether the ids
// exist and repeat is the validator's business: it knows the whole document.
func checkOrder(raw []byte, line int, p *lineProblems) []string {
	items, err := elements(raw)
	if err != nil {
		p.add(errorf(line, "operationOrder", "operationOrder must be an array of operation ids, got %s", jsonKind(raw)))
		return nil
	}
	if len(items) == 0 {
		p.add(errorf(line, "operationOrder", "operationOrder must have at least one item"))
		return nil
	}
	order := make([]string, 0, len(items))
	for i, it := range items {
		s, ok := rawString(it)
		if !ok {
			p.add(errorf(line, indexPath("operationOrder", i), "operationOrder[%d] must be a string, got %s", i, jsonKind(it)))
			continue
		}
		order = append(order, s)
	}
	return order
}

// checkID reads an operationId or executionId.
func checkID(raw []byte, line int, path, what string) (string, *Error) {
	s, ok := rawString(raw)
	if !ok {
		return "", errorf(line, path, "%s must be a string, got %s", what, jsonKind(raw))
	}
	if e := idProblem(s, line, path, what); e != nil {
		return "", e
	}
	return s, nil
}

// idProblem says what is wrong with an id, nil when nothing is.
func idProblem(s string, line int, path, what string) *Error {
	switch {
	case s == "":
		return errorf(line, path, "%s must not be empty", what)
	case len(s) > MaxIDLength:
		return errorf(line, path, "%s is %d bytes long; the limit is %d", what, len(s), MaxIDLength)
	case !validID(s):
		return errorf(line, path, "%s %q must match %s", what, s, IDPattern).
			suggest("Use only letters, digits, '_' and '-'")
	}
	return nil
}

func validID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isKeyByte(s[i]) {
			return false
		}
	}
	return true
}

// checkOperation reads the one-key object {"Name": {config}} at path. Whether the
// name is in the catalog and the config is valid is the validator's business.
func checkOperation(raw []byte, path string, p *lineProblems) Operation {
	ms, err := members(raw)
	if err != nil {
		p.add(errorf(p.line, path, "%s must be an object with one key, the operation name, got %s", lastName(path), jsonKind(raw)).
			suggest(`Give the operation as {"<Name>": {<config>}}`))
		return Operation{}
	}
	before := p.n
	byKey := indexMembers(ms, path, p)
	if len(byKey) != 1 {
		names := memberNames(ms)
		if len(names) == 0 {
			p.add(errorf(p.line, path, "%s must have exactly one key (the operation name), found 0", lastName(path)).
				suggest("Use one of: " + strings.Join(OperationNames, ", ")))
		} else {
			p.add(errorf(p.line, path, "%s must have exactly one key, found %d (%s)", lastName(path), len(byKey), listNames(names)).
				suggest("Put each operation in its own operationUpdate message"))
		}
		return Operation{}
	}
	if p.n > before {
		return Operation{}
	}
	name, cfg := ms[0].key, ms[0].value
	if name == "" {
		p.add(errorf(p.line, path, "%s has an empty operation name", lastName(path)).
			suggest("Use one of: " + strings.Join(OperationNames, ", ")))
		return Operation{}
	}
	if k := jsonKind(cfg); k != "object" {
		at := joinPath(path, name)
		p.add(errorf(p.line, at, "%s must be an object, got %s", at, k))
		return Operation{}
	}
	return Operation{Name: name, Config: append(json.RawMessage(nil), cfg...)}
}

// lastName is the last element of a dotted path, for messages that name a field.
func lastName(path string) string {
	if i := strings.LastIndexAny(path, ".]"); i >= 0 && i+1 < len(path) {
		return path[i+1:]
	}
	return path
}

// listNames joins at most five names (unique, in order) for a message.
func listNames(names []string) string {
	var uniq []string
	for _, n := range names {
		if !slices.Contains(uniq, n) {
			uniq = append(uniq, clip(n))
		}
	}
	if len(uniq) > 5 {
		return strings.Join(uniq[:5], ", ") + fmt.Sprintf(", and %d more", len(uniq)-5)
	}
	return strings.Join(uniq, ", ")
}

// clip shortens a string taken from a document before it is quoted in a message,
// so a huge key cannot make a huge report.
func clip(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "..."
}
