package agenthttp

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Headers of the task contract.
const (
	// HeaderCorrelationID is sent on every attempt (RESOLUTIONS).
	HeaderCorrelationID = "X-Correlation-ID"
	// HeaderIdempotencyKey carries the task_id as well, for agents behind
	// infrastructure that de-duplicates on it; the body's task_id is the
	// contract's idempotency key.
	HeaderIdempotencyKey = "Idempotency-Key"
	// DefaultAPIKeyHeader is the header of apikey auth when none is named.
	DefaultAPIKeyHeader = "X-API-Key"
	// HealthPath is appended to an agent's URL for its health check.
	HealthPath = "/health"
)

// Request is the body POSTed to an agent: the task's id and the agent's
// input, a JSON object.
type Request struct {
	TaskID string          `json:"task_id"`
	Input  json.RawMessage `json:"input"`
}

// EncodeRequest writes r, checking the task id and that the input is a JSON
// object (the spec's input is an object).
func EncodeRequest(r Request) ([]byte, error) {
	if err := CheckTaskID("request", "task_id", r.TaskID); err != nil {
		return nil, err
	}
	if !json.Valid(r.Input) {
		return nil, errorf("request", "input", 0, "is not valid JSON")
	}
	if !isObject(r.Input) {
		return nil, errorf("request", "input", 0, "want a JSON object, got %s", kindOf(r.Input))
	}
	// Written by hand: json.Marshal would compact the input a second time.
	id, _ := json.Marshal(r.TaskID)
	var b bytes.Buffer
	b.Grow(len(id) + len(r.Input) + 24)
	b.WriteString(`{"task_id":`)
	b.Write(id)
	b.WriteString(`,"input":`)
	if err := json.Compact(&b, r.Input); err != nil {
		return nil, errorf("request", "input", 0, "is not valid JSON")
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// DecodeRequest reads a task request as an agent receives it (used by
// sluice mock-agent): task_id a non-empty string, input an object.
func DecodeRequest(data []byte, lim Limits) (*Request, error) {
	d := decoder{what: "request", lim: lim.orDefault(DefaultMaxRequestBytes)}
	members, err := d.top(data)
	if err != nil {
		return nil, err
	}
	var r Request
	var haveID, haveInput bool
	for _, m := range members {
		switch m.key {
		case "task_id":
			if r.TaskID, err = d.str(m, "task_id"); err != nil {
				return nil, err
			}
			if err := CheckTaskID("request", "task_id", r.TaskID); err != nil {
				err.(*Error).Offset = m.off
				return nil, err
			}
			haveID = true
		case "input":
			if !isObject(m.raw) {
				return nil, errorf(d.what, "input", m.off, "want a JSON object, got %s", kindOf(m.raw))
			}
			r.Input, haveInput = compact(m.raw), true
		}
	}
	switch {
	case !haveID:
		return nil, errorf(d.what, "task_id", 0, "is missing")
	case !haveInput:
		return nil, errorf(d.what, "input", 0, "is missing")
	}
	return &r, nil
}

// Status is a response's status field.
type Status string

// The statuses of a response. A response without status is a success
// (RESOLUTIONS).
const (
	StatusSuccess Status = "success"
	StatusError   Status = "error"
)

// Response is an agent's answer to a task (a 2xx body).
type Response struct {
	TaskID string
	// Status is "" when the answer had none (a success), or one of the two
	// statuses.
	Status Status
	// Output is the agent's output as it sent it (valid JSON, whitespace
	// kept), null when it sent none.
	Output json.RawMessage
	// Error is the agent's message, nil when it sent null or none.
	Error *string
}

// Failed reports whether the agent reported an error (status "error").
func (r *Response) Failed() bool { return r.Status == StatusError }

// ErrorText is the agent's error message, or a stand-in when it gave none.
func (r *Response) ErrorText() string {
	if r.Error == nil || strings.TrimSpace(*r.Error) == "" {
		return "the agent reported an error without a message"
	}
	return *r.Error
}

type responseWire struct {
	TaskID string          `json:"task_id"`
	Status Status          `json:"status"`
	Output json.RawMessage `json:"output"`
	Error  *string         `json:"error"`
}

// MarshalJSON writes the spec's shape: every field present, status
// "success" when unset, output null when unset.
func (r Response) MarshalJSON() ([]byte, error) {
	w := responseWire{TaskID: r.TaskID, Status: r.Status, Output: r.Output, Error: r.Error}
	if w.Status == "" {
		w.Status = StatusSuccess
	}
	if len(w.Output) == 0 {
		w.Output = json.RawMessage("null")
	}
	return json.Marshal(w)
}

// DecodeResponse reads an agent's 2xx answer. task_id must be a string;
// status absent, null, "success" or "error"; output any JSON value; error a
// string or null. Status is read in any case ("SUCCESS" is "success"). Other fields are ignored (agents may say more). Errors
// name the field and byte offset; they never quote the agent's values
// beyond statuses.
func DecodeResponse(data []byte, lim Limits) (*Response, error) {
	d := decoder{what: "response", lim: lim.orDefault(DefaultMaxResponseBytes)}
	members, err := d.top(data)
	if err != nil {
		return nil, err
	}
	r := &Response{Output: json.RawMessage("null")}
	haveID := false
	for _, m := range members {
		switch m.key {
		case "task_id":
			if r.TaskID, err = d.str(m, "task_id"); err != nil {
				return nil, err
			}
			haveID = true
		case "status":
			s, ok, err := d.optStr(m, "status")
			if err != nil {
				return nil, err
			}
			if ok {
				// Case is forgiven: an agent that answers "SUCCESS" (the
				// queue's word) did succeed.
				switch Status(strings.ToLower(s)) {
				case StatusSuccess, StatusError:
					r.Status = Status(strings.ToLower(s))
				default:
					return nil, errorf(d.what, "status", m.off, "is %s; want \"success\" or \"error\"", quoteShort(s))
				}
			}
		case "output":
			r.Output = m.raw // valid JSON as sent; compacting it again costs a pass over every answer
		case "error":
			s, ok, err := d.optStr(m, "error")
			if err != nil {
				return nil, err
			}
			if ok {
				r.Error = &s
			}
		}
	}
	if !haveID {
		return nil, errorf(d.what, "task_id", 0, "is missing")
	}
	return r, nil
}

// ErrorMessage extracts a short, printable message from the body of an
// agent's 4xx/5xx answer: the spec's {"error": "...", "details": ...}, or
// {"error": {"message": ...}}, {"message": ...}, {"detail": ...}, or the
// text itself. It is cut to max bytes (0: MaxErrorMessageBytes) with control
// characters replaced; "" when the body says nothing.
func ErrorMessage(body []byte, max int) string {
	if max <= 0 {
		max = MaxErrorMessageBytes
	}
	if len(body) <= DefaultMaxResponseBytes {
		if _, ok := checkDepth(body, DefaultMaxDepth); ok {
			if msg, ok := jsonMessage(body); ok {
				return clean(msg, max)
			}
		}
	}
	if !utf8.Valid(body) || bytes.ContainsRune(body, 0) {
		return ""
	}
	return clean(string(body), max)
}

// jsonMessage finds a message in a JSON error body.
func jsonMessage(body []byte) (string, bool) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return "", false
	}
	m, ok := v.(map[string]any)
	if !ok {
		if s, ok := v.(string); ok {
			return s, true
		}
		return "", false
	}
	for _, k := range []string{"error", "message", "detail", "error_message"} {
		switch x := m[k].(type) {
		case string:
			return x, true
		case map[string]any:
			if s, ok := x["message"].(string); ok {
				return s, true
			}
		}
	}
	return "", true
}

// clean makes s one printable line of at most max bytes.
func clean(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// CheckTaskID checks a task, run, step or correlation id: 1 to
// MaxTaskIDBytes of printable UTF-8 (ids go into headers and log lines).
func CheckTaskID(what, field, id string) error {
	switch {
	case id == "":
		return errorf(what, field, 0, "is empty")
	case len(id) > MaxTaskIDBytes:
		return errorf(what, field, 0, "is %d bytes, over the limit of %d", len(id), MaxTaskIDBytes)
	case !utf8.ValidString(id):
		return errorf(what, field, 0, "is not valid UTF-8")
	}
	for i, r := range id {
		if r < 0x20 || r == 0x7f || unicode.IsControl(r) {
			return errorf(what, field, 0, "holds a control character at byte %d", i)
		}
	}
	return nil
}
