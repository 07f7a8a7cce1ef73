package agenthttp

import (
	"encoding/json"
	"strings"
	"time"
)

// The queue messages of the executor bridge keep the seed platform's shapes
// and status words (RESOLUTIONS "HTTP task agents"). sluice adds optional
// members a seed consumer ignores: reply_to on a task (where its result
// goes, so each gateway gets its own callers' results), error_code and
// error_details on a failed result (the error kind and details, so a caller
// behind the queue sees what one calling the agent directly does), and, for
// A2A agents, remote_task_id, context_id and updates on a task and update
// messages on the reply topic.

// Default topics of the bridge.
const (
	TopicTasks      = "agent.tasks"
	TopicResults    = "agent.results"
	TopicMonitoring = "agent.monitoring"
)

// Bounds of the extension members.
const (
	MaxTopicBytes     = 256
	MaxErrorCodeBytes = 64
)

// TaskMessage asks the bridge to run one agent task (the tasks topic).
type TaskMessage struct {
	RunID         string          `json:"run_id"`
	TaskID        string          `json:"task_id"`
	AgentName     string          `json:"agent_name"`
	InputData     json.RawMessage `json:"input_data"`
	CorrelationID string          `json:"correlation_id"`
	// ReplyTo is the topic the result goes to (sluice's extension; empty:
	// TopicResults).
	ReplyTo string `json:"reply_to,omitempty"`
	// RemoteTaskID and ContextID continue an A2A agent's task that waits
	// for input: the input is the next message of that task (sluice's
	// extension; empty: a new task).
	RemoteTaskID string `json:"remote_task_id,omitempty"`
	ContextID    string `json:"context_id,omitempty"`
	// Conversation makes the call part of a conversation with the agent
	// (an ACP agent's calls with one key share its process and session;
	// sluice's extension; empty: none). It is an opaque key the caller's
	// gateway derives from the account and the caller's id of it.
	Conversation string `json:"conversation,omitempty"`
	// Updates asks the worker to send the call's updates to ReplyTo as
	// UpdateMessages while it runs (sluice's extension).
	Updates bool `json:"updates,omitempty"`
	// Traceparent, Tracestate and Baggage are the caller's W3C trace
	// context (sluice's extension), so the worker's spans join the caller's
	// trace whichever queue carried the task; empty when tracing is off.
	Traceparent string    `json:"traceparent,omitempty"`
	Tracestate  string    `json:"tracestate,omitempty"`
	Baggage     string    `json:"baggage,omitempty"`
	Timestamp   time.Time `json:"-"`
}

// Bounds of the trace context fields of a task message: W3C's own
// (traceparent is 55 characters; tracestate at most 32 entries, 512
// characters; baggage 8192 bytes).
const (
	MaxTraceparentBytes = 128
	MaxTracestateBytes  = 512
	MaxBaggageBytes     = 8192
)

// ResultTopic is where the task's result goes.
func (m TaskMessage) ResultTopic() string {
	if m.ReplyTo == "" {
		return TopicResults
	}
	return m.ReplyTo
}

// ResultStatus is a result message's status.
type ResultStatus string

// Result statuses.
const (
	ResultSuccess ResultStatus = "SUCCESS"
	ResultFailure ResultStatus = "FAILURE"
)

// ResultMessage is the bridge's answer to a task (the results topic, keyed
// by correlation_id). OutputData is null on failure; ErrorMessage nil on
// success.
type ResultMessage struct {
	RunID         string          `json:"run_id"`
	TaskID        string          `json:"task_id"`
	Status        ResultStatus    `json:"status"`
	OutputData    json.RawMessage `json:"output_data"`
	CorrelationID string          `json:"correlation_id"`
	ErrorMessage  *string         `json:"error_message"`
	// ErrorCode is the kind of a failure in sluice's error model, such as
	// not_found or upstream (sluice's extension; empty on success and from
	// producers that do not set it).
	ErrorCode string `json:"error_code,omitempty"`
	// ErrorDetails are the failure's safe structured details, an object
	// (sluice's extension: what a waiting A2A task asks travels in them).
	ErrorDetails json.RawMessage `json:"error_details,omitempty"`
	Timestamp    time.Time       `json:"-"`
}

// UpdateMessage is one update of a running task, sent to the task's reply
// topic before its result when the task asked for updates (sluice's
// extension). Seq counts a task's updates from 1; DeltaKind is an E2A delta
// kind and Delta its value.
type UpdateMessage struct {
	RunID     string          `json:"run_id"`
	TaskID    string          `json:"task_id"`
	Seq       int             `json:"seq"`
	DeltaKind string          `json:"delta_kind"`
	Delta     json.RawMessage `json:"delta"`
}

// IsUpdateMessage reports whether a message on a reply topic is an update
// (it has delta_kind) rather than a result. It reads only the top level.
func IsUpdateMessage(data []byte) bool {
	var probe struct {
		DeltaKind *string `json:"delta_kind"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.DeltaKind != nil
}

// DecodeUpdateMessage reads an update message: run_id, task_id, seq (1 or
// more), delta_kind (a token) and delta (any JSON value) required.
func DecodeUpdateMessage(data []byte, lim Limits) (*UpdateMessage, error) {
	d := decoder{what: "update message", lim: lim.orDefault(DefaultMaxMessageBytes)}
	fs, err := d.fields(data)
	if err != nil {
		return nil, err
	}
	var m UpdateMessage
	if m.RunID, err = d.id(fs, "run_id"); err != nil {
		return nil, err
	}
	if m.TaskID, err = d.id(fs, "task_id"); err != nil {
		return nil, err
	}
	sq, ok := fs["seq"]
	if !ok {
		return nil, errorf(d.what, "seq", 0, "is missing")
	}
	if json.Unmarshal(sq.raw, &m.Seq) != nil || m.Seq < 1 {
		return nil, errorf(d.what, "seq", sq.off, "want a whole number of 1 or more")
	}
	dk, ok := fs["delta_kind"]
	if !ok {
		return nil, errorf(d.what, "delta_kind", 0, "is missing")
	}
	if m.DeltaKind, err = d.str(dk, "delta_kind"); err != nil {
		return nil, err
	}
	if err := checkToken(d.what, "delta_kind", dk.off, m.DeltaKind, MaxErrorCodeBytes, false); err != nil {
		return nil, err
	}
	dl, ok := fs["delta"]
	if !ok {
		return nil, errorf(d.what, "delta", 0, "is missing")
	}
	m.Delta = compact(dl.raw)
	return &m, nil
}

// StepStatus is a monitoring message's status.
type StepStatus string

// Step statuses.
const (
	StepRunning   StepStatus = "RUNNING"
	StepCompleted StepStatus = "COMPLETED"
	StepFailed    StepStatus = "FAILED"
)

// MonitoringMessage reports a workflow step's progress.
type MonitoringMessage struct {
	RunID     string          `json:"run_id"`
	StepID    string          `json:"step_id"`
	StepName  string          `json:"step_name"`
	Status    StepStatus      `json:"status"`
	Timestamp time.Time       `json:"-"`
	Metadata  json.RawMessage `json:"metadata"` // a JSON object; {} when none
}

// FormatTimestamp writes t like the rest of sluice's wire formats
// (RESOLUTIONS "Conventions"): 2026-03-28T12:00:00+00:00, with .ffffff
// microseconds when not zero.
func FormatTimestamp(t time.Time) string {
	t = t.UTC().Truncate(time.Microsecond)
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05+00:00")
	}
	return t.Format("2006-01-02T15:04:05.000000+00:00")
}

// ParseTimestamp reads RFC 3339 with any offset, or an ISO 8601 date-time
// without one (Python's datetime.isoformat() of a naive UTC time), which is
// taken as UTC.
func ParseTimestamp(s string) (time.Time, bool) {
	if len(s) > 64 {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), true
	}
	if t, err := time.Parse("2006-01-02T15:04:05.999999999", s); err == nil {
		return t.UTC(), true
	}
	return time.Time{}, false
}

func rawOr(v json.RawMessage, def string) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage(def)
	}
	return v
}

// MarshalJSON writes the seed shape with the timestamp formatted.
func (m TaskMessage) MarshalJSON() ([]byte, error) {
	type plain TaskMessage
	return json.Marshal(struct {
		plain
		Timestamp string `json:"timestamp"`
	}{plain: plain(TaskMessage{RunID: m.RunID, TaskID: m.TaskID, AgentName: m.AgentName,
		InputData: rawOr(m.InputData, "{}"), CorrelationID: m.CorrelationID, ReplyTo: m.ReplyTo,
		RemoteTaskID: m.RemoteTaskID, ContextID: m.ContextID, Conversation: m.Conversation, Updates: m.Updates,
		Traceparent: m.Traceparent, Tracestate: m.Tracestate, Baggage: m.Baggage}), Timestamp: FormatTimestamp(m.Timestamp)})
}

// MarshalJSON writes the seed shape with the timestamp formatted.
func (m ResultMessage) MarshalJSON() ([]byte, error) {
	type plain ResultMessage
	p := plain(m)
	p.OutputData = rawOr(m.OutputData, "null")
	return json.Marshal(struct {
		plain
		Timestamp string `json:"timestamp"`
	}{plain: p, Timestamp: FormatTimestamp(m.Timestamp)})
}

// MarshalJSON writes the seed shape with the timestamp formatted.
func (m MonitoringMessage) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		RunID     string          `json:"run_id"`
		StepID    string          `json:"step_id"`
		StepName  string          `json:"step_name"`
		Status    StepStatus      `json:"status"`
		Timestamp string          `json:"timestamp"`
		Metadata  json.RawMessage `json:"metadata"`
	}{m.RunID, m.StepID, m.StepName, m.Status, FormatTimestamp(m.Timestamp), rawOr(m.Metadata, "{}")})
}

// fields reads a message's members into a map. Unknown keys are ignored:
// the bridge consumes what other producers write, and a field added there
// must not stop it.
func (d decoder) fields(data []byte) (map[string]member, error) {
	members, err := d.top(data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]member, len(members))
	for _, m := range members {
		out[m.key] = m
	}
	return out, nil
}

// id reads a required id field (CheckTaskID rules).
func (d decoder) id(fs map[string]member, key string) (string, error) {
	m, ok := fs[key]
	if !ok {
		return "", errorf(d.what, key, 0, "is missing")
	}
	s, err := d.str(m, key)
	if err != nil {
		return "", err
	}
	if err := CheckTaskID(d.what, key, s); err != nil {
		err.(*Error).Offset = m.off
		return "", err
	}
	return s, nil
}

func (d decoder) timestamp(fs map[string]member) (time.Time, error) {
	m, ok := fs["timestamp"]
	if !ok {
		return time.Time{}, errorf(d.what, "timestamp", 0, "is missing")
	}
	s, err := d.str(m, "timestamp")
	if err != nil {
		return time.Time{}, err
	}
	t, ok := ParseTimestamp(s)
	if !ok {
		return time.Time{}, errorf(d.what, "timestamp", m.off, "want an ISO 8601 date-time such as 2026-03-28T12:00:00+00:00")
	}
	return t, nil
}

func (d decoder) status(fs map[string]member, allowed ...string) (string, error) {
	m, ok := fs["status"]
	if !ok {
		return "", errorf(d.what, "status", 0, "is missing")
	}
	s, err := d.str(m, "status")
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", errorf(d.what, "status", m.off, "is %s; want %s", quoteShort(s), strings.Join(allowed, " or "))
}

// DecodeTaskMessage reads a task message: every field required, input_data
// an object.
func DecodeTaskMessage(data []byte, lim Limits) (*TaskMessage, error) {
	d := decoder{what: "task message", lim: lim.orDefault(DefaultMaxMessageBytes)}
	fs, err := d.fields(data)
	if err != nil {
		return nil, err
	}
	var m TaskMessage
	if m.RunID, err = d.id(fs, "run_id"); err != nil {
		return nil, err
	}
	if m.TaskID, err = d.id(fs, "task_id"); err != nil {
		return nil, err
	}
	name, ok := fs["agent_name"]
	if !ok {
		return nil, errorf(d.what, "agent_name", 0, "is missing")
	}
	if m.AgentName, err = d.str(name, "agent_name"); err != nil {
		return nil, err
	}
	if err := CheckName(d.what, m.AgentName); err != nil {
		err.(*Error).Path, err.(*Error).Offset = "agent_name", name.off
		return nil, err
	}
	in, ok := fs["input_data"]
	switch {
	case !ok:
		return nil, errorf(d.what, "input_data", 0, "is missing")
	case !isObject(in.raw):
		return nil, errorf(d.what, "input_data", in.off, "want a JSON object, got %s", kindOf(in.raw))
	}
	m.InputData = compact(in.raw)
	if m.CorrelationID, err = d.id(fs, "correlation_id"); err != nil {
		return nil, err
	}
	if rt, ok := fs["reply_to"]; ok {
		if m.ReplyTo, _, err = d.optStr(rt, "reply_to"); err != nil {
			return nil, err
		}
		if err := checkToken(d.what, "reply_to", rt.off, m.ReplyTo, MaxTopicBytes, false); err != nil {
			return nil, err
		}
	}
	for _, k := range []struct {
		key string
		to  *string
	}{{"remote_task_id", &m.RemoteTaskID}, {"context_id", &m.ContextID}, {"conversation", &m.Conversation}} {
		if f, ok := fs[k.key]; ok {
			if *k.to, _, err = d.optStr(f, k.key); err != nil {
				return nil, err
			}
			if *k.to != "" {
				if err := CheckTaskID(d.what, k.key, *k.to); err != nil {
					err.(*Error).Offset = f.off
					return nil, err
				}
			}
		}
	}
	if f, ok := fs["updates"]; ok && json.Unmarshal(f.raw, &m.Updates) != nil {
		return nil, errorf(d.what, "updates", f.off, "want true or false")
	}
	for _, k := range []struct {
		key string
		to  *string
		max int
	}{{"traceparent", &m.Traceparent, MaxTraceparentBytes}, {"tracestate", &m.Tracestate, MaxTracestateBytes},
		{"baggage", &m.Baggage, MaxBaggageBytes}} {
		if f, ok := fs[k.key]; ok {
			if *k.to, _, err = d.optStr(f, k.key); err != nil {
				return nil, err
			}
			if err := checkToken(d.what, k.key, f.off, *k.to, k.max, false); err != nil {
				return nil, err
			}
		}
	}
	if m.Timestamp, err = d.timestamp(fs); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkToken refuses a string over max bytes or holding a control
// character (or, when word, anything but [a-z0-9_]).
func checkToken(what, path string, off int, s string, max int, word bool) error {
	if len(s) > max {
		return errorf(what, path, off, "is %d bytes long, over the limit of %d", len(s), max)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return errorf(what, path, off, "holds a control character at byte %d", i)
		}
		if word && !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return errorf(what, path, off, "holds %q at byte %d; want lower-case letters, digits and _", c, i)
		}
	}
	return nil
}

// DecodeResultMessage reads a result message. output_data and
// error_message may be null or absent.
func DecodeResultMessage(data []byte, lim Limits) (*ResultMessage, error) {
	d := decoder{what: "result message", lim: lim.orDefault(DefaultMaxMessageBytes)}
	fs, err := d.fields(data)
	if err != nil {
		return nil, err
	}
	m := ResultMessage{OutputData: json.RawMessage("null")}
	if m.RunID, err = d.id(fs, "run_id"); err != nil {
		return nil, err
	}
	if m.TaskID, err = d.id(fs, "task_id"); err != nil {
		return nil, err
	}
	s, err := d.status(fs, string(ResultSuccess), string(ResultFailure))
	if err != nil {
		return nil, err
	}
	m.Status = ResultStatus(s)
	if out, ok := fs["output_data"]; ok {
		m.OutputData = compact(out.raw)
	}
	if m.CorrelationID, err = d.id(fs, "correlation_id"); err != nil {
		return nil, err
	}
	if em, ok := fs["error_message"]; ok {
		s, set, err := d.optStr(em, "error_message")
		if err != nil {
			return nil, err
		}
		if set {
			m.ErrorMessage = &s
		}
	}
	if ec, ok := fs["error_code"]; ok {
		if m.ErrorCode, _, err = d.optStr(ec, "error_code"); err != nil {
			return nil, err
		}
		if err := checkToken(d.what, "error_code", ec.off, m.ErrorCode, MaxErrorCodeBytes, true); err != nil {
			return nil, err
		}
	}
	if ed, ok := fs["error_details"]; ok && !isNull(ed.raw) {
		if !isObject(ed.raw) {
			return nil, errorf(d.what, "error_details", ed.off, "want a JSON object, got %s", kindOf(ed.raw))
		}
		m.ErrorDetails = compact(ed.raw)
	}
	if m.Timestamp, err = d.timestamp(fs); err != nil {
		return nil, err
	}
	return &m, nil
}

// DecodeMonitoringMessage reads a monitoring message; metadata is an object
// ({} when absent or null).
func DecodeMonitoringMessage(data []byte, lim Limits) (*MonitoringMessage, error) {
	d := decoder{what: "monitoring message", lim: lim.orDefault(DefaultMaxMessageBytes)}
	fs, err := d.fields(data)
	if err != nil {
		return nil, err
	}
	m := MonitoringMessage{Metadata: json.RawMessage("{}")}
	if m.RunID, err = d.id(fs, "run_id"); err != nil {
		return nil, err
	}
	if m.StepID, err = d.id(fs, "step_id"); err != nil {
		return nil, err
	}
	if sn, ok := fs["step_name"]; ok {
		if m.StepName, _, err = d.optStr(sn, "step_name"); err != nil {
			return nil, err
		}
	}
	s, err := d.status(fs, string(StepRunning), string(StepCompleted), string(StepFailed))
	if err != nil {
		return nil, err
	}
	m.Status = StepStatus(s)
	if m.Timestamp, err = d.timestamp(fs); err != nil {
		return nil, err
	}
	if md, ok := fs["metadata"]; ok && !isNull(md.raw) {
		if !isObject(md.raw) {
			return nil, errorf(d.what, "metadata", md.off, "want a JSON object, got %s", kindOf(md.raw))
		}
		m.Metadata = compact(md.raw)
	}
	return &m, nil
}
