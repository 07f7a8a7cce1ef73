package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// Error says what is wrong with a message and in which field.
type Error struct {
	Message string // the kind of message: task, result, monitoring
	Field   string // the JSON field, empty for the whole message
	Problem string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s message: %s", e.Message, e.Problem)
	}
	return fmt.Sprintf("%s message: field %s: %s", e.Message, e.Field, e.Problem)
}

// MarshalJSON writes a task with its timestamp in the reference form.
func (t Task) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		RunID         string          `json:"run_id"`
		TaskID        string          `json:"task_id"`
		AgentName     string          `json:"agent_name"`
		InputData     json.RawMessage `json:"input_data"`
		CorrelationID string          `json:"correlation_id"`
		Timestamp     string          `json:"timestamp"`
	}{t.RunID, t.TaskID, t.AgentName, rawOrNull(t.InputData), t.CorrelationID, e2a.FormatTimestamp(t.Timestamp)})
}

// MarshalJSON writes a result with its timestamp in the reference form.
func (r Result) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		RunID         string          `json:"run_id"`
		TaskID        string          `json:"task_id"`
		Status        ResultStatus    `json:"status"`
		OutputData    json.RawMessage `json:"output_data"`
		CorrelationID string          `json:"correlation_id"`
		ErrorMessage  *string         `json:"error_message"`
		Timestamp     string          `json:"timestamp"`
	}{r.RunID, r.TaskID, r.Status, rawOrNull(r.OutputData), r.CorrelationID, r.ErrorMessage, e2a.FormatTimestamp(r.Timestamp)})
}

// MarshalJSON writes a monitoring update with its timestamp in the reference
// form.
func (m Monitoring) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		RunID     string          `json:"run_id"`
		StepID    string          `json:"step_id"`
		StepName  string          `json:"step_name"`
		Status    StepStatus      `json:"status"`
		Timestamp string          `json:"timestamp"`
		Metadata  json.RawMessage `json:"metadata"`
	}{m.RunID, m.StepID, m.StepName, m.Status, e2a.FormatTimestamp(m.Timestamp), rawOrNull(m.Metadata)})
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// DecodeTask reads a task.
func DecodeTask(data []byte) (Task, error) {
	var t Task
	d, err := newDecoder("task", data)
	if err != nil {
		return t, err
	}
	t.RunID = d.id("run_id")
	t.TaskID = d.id("task_id")
	t.AgentName = d.id("agent_name")
	t.InputData = d.object("input_data", false)
	t.CorrelationID = d.id("correlation_id")
	t.Timestamp = d.time("timestamp")
	return t, d.err
}

// DecodeResult reads a result. A SUCCESS carries no error_message; a FAILURE
// carries one.
func DecodeResult(data []byte) (Result, error) {
	var r Result
	d, err := newDecoder("result", data)
	if err != nil {
		return r, err
	}
	r.RunID = d.id("run_id")
	r.TaskID = d.id("task_id")
	r.Status = ResultStatus(d.word("status", string(Success), string(Failure)))
	r.OutputData = d.any("output_data")
	r.CorrelationID = d.id("correlation_id")
	r.ErrorMessage = d.optString("error_message", MaxErrorBytes)
	r.Timestamp = d.time("timestamp")
	if d.err == nil {
		switch {
		case r.Status == Success && r.ErrorMessage != nil:
			d.fail("error_message", "must be null when status is SUCCESS")
		case r.Status == Failure && r.ErrorMessage == nil:
			d.fail("error_message", "is required when status is FAILURE")
		}
	}
	return r, d.err
}

// DecodeMonitoring reads a monitoring update.
func DecodeMonitoring(data []byte) (Monitoring, error) {
	var m Monitoring
	d, err := newDecoder("monitoring", data)
	if err != nil {
		return m, err
	}
	m.RunID = d.id("run_id")
	m.StepID = d.id("step_id")
	m.StepName = d.str("step_name", MaxNameBytes, false)
	m.Status = StepStatus(d.word("status", string(Running), string(Completed), string(Failed)))
	m.Timestamp = d.time("timestamp")
	m.Metadata = d.object("metadata", true)
	return m, d.err
}

// decoder reads the fields of one JSON object, keeping the first problem.
type decoder struct {
	kind   string
	fields map[string]json.RawMessage
	err    error
}

func newDecoder(kind string, data []byte) (*decoder, error) {
	if len(data) > MaxMessageBytes {
		return nil, &Error{Message: kind, Problem: fmt.Sprintf("is %d bytes, over the limit of %d", len(data), MaxMessageBytes)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return nil, &Error{Message: kind, Problem: "is not a JSON object" + jsonWhere(data, err)}
	}
	return &decoder{kind: kind, fields: fields}, nil
}

// jsonWhere says where encoding/json found a syntax error.
func jsonWhere(data []byte, err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf(" (%s at line %d, byte %d)", se.Error(), line, se.Offset)
	}
	return ""
}

func (d *decoder) fail(field, format string, args ...any) {
	if d.err == nil {
		d.err = &Error{Message: d.kind, Field: field, Problem: fmt.Sprintf(format, args...)}
	}
}

// raw returns a present, non-null field, or nil after recording that it is
// missing when required.
func (d *decoder) raw(field string, required bool) json.RawMessage {
	v, ok := d.fields[field]
	if !ok || string(v) == "null" {
		if required {
			d.fail(field, "is required")
		}
		return nil
	}
	return v
}

func (d *decoder) str(field string, max int, allowEmpty bool) string {
	v := d.raw(field, true)
	if v == nil {
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		d.fail(field, "must be a string")
		return ""
	}
	switch {
	case s == "" && !allowEmpty:
		d.fail(field, "must not be empty")
	case len(s) > max:
		d.fail(field, "is %d bytes long, over the limit of %d", len(s), max)
	case !utf8.ValidString(s):
		d.fail(field, "is not valid UTF-8")
	}
	return s
}

// id reads a required identifier: no control characters, at most MaxIDBytes.
func (d *decoder) id(field string) string {
	s := d.str(field, MaxIDBytes, false)
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			d.fail(field, "holds a control character at byte %d", i)
			break
		}
	}
	return s
}

func (d *decoder) optString(field string, max int) *string {
	if d.raw(field, false) == nil {
		return nil
	}
	s := d.str(field, max, true)
	return &s
}

func (d *decoder) word(field string, words ...string) string {
	s := d.str(field, MaxIDBytes, false)
	for _, w := range words {
		if s == w {
			return s
		}
	}
	if s != "" {
		d.fail(field, "is %q, not one of %v", s, words)
	}
	return s
}

// object reads a JSON object (or null when nullable), kept as written.
func (d *decoder) object(field string, nullable bool) json.RawMessage {
	v := d.raw(field, !nullable)
	if v == nil {
		return nil
	}
	if v[0] != '{' {
		d.fail(field, "must be a JSON object")
		return nil
	}
	return v
}

// any reads any JSON value, kept as written (nil for null or absent).
func (d *decoder) any(field string) json.RawMessage { return d.raw(field, false) }

func (d *decoder) time(field string) time.Time {
	v := d.raw(field, true)
	if v == nil {
		return time.Time{}
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		d.fail(field, "must be an RFC 3339 time string")
		return time.Time{}
	}
	t, err := e2a.ParseTimestamp(s)
	if err != nil {
		// The seed platform's Python may write a naive isoformat(): it means UTC.
		if naive, nerr := time.Parse("2006-01-02T15:04:05.999999999", strings.Replace(s, " ", "T", 1)); nerr == nil {
			return naive.UTC()
		}
		var ee *e2a.Error
		if errors.As(err, &ee) {
			d.fail(field, "%s", ee.Message)
		} else {
			d.fail(field, "is not an RFC 3339 time")
		}
	}
	return t
}
