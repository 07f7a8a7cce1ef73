package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Run is one run of any kind (an A2E execution, a capability run, an agent
// workflow run) as /api/v1/runs shows it. Detail is the run as its kind's
// own route shows it (GET of one run only).
type Run struct {
	RunID      string          `json:"run_id"`
	Kind       string          `json:"kind"`
	Status     string          `json:"status"`
	AccountID  string          `json:"account_id"`
	CreatedAt  time.Time       `json:"created_at"`
	UpdatedAt  time.Time       `json:"updated_at"`
	FinishedAt *time.Time      `json:"finished_at,omitempty"`
	Detail     json.RawMessage `json:"detail,omitempty"`
}

// Final reports whether the run has ended.
func (r *Run) Final() bool { return finalStatus(r.Status) }

func finalStatus(s string) bool {
	switch s {
	case "success", "failed", "partial", "cancelled":
		return true
	}
	return false
}

// RunsQuery filters and pages a listing of runs; zero fields do not filter.
type RunsQuery struct {
	Kinds  []string // a2e, a2s, agent_workflow
	Status []string // queued, running, waiting, success, failed, partial, cancelled
	// Account is an admin's: another account's id, or "*" for every account.
	Account string
	Cursor  string
	Limit   int // 1-1000; 0: the server's default (50)
}

// Runs lists one page of runs of every kind, newest first, and the cursor
// of the next page ("" at the end).
func (c *Client) Runs(ctx context.Context, q RunsQuery) ([]Run, string, error) {
	v := url.Values{}
	if len(q.Kinds) > 0 {
		v.Set("kind", strings.Join(q.Kinds, ","))
	}
	if len(q.Status) > 0 {
		v.Set("status", strings.Join(q.Status, ","))
	}
	setNonEmpty(v, "account", q.Account)
	setPage(v, q.Cursor, q.Limit)
	return getPage[Run](ctx, c, withQuery("/api/v1/runs", v), "runs")
}

// Run reads one run, of any kind, with its detail.
func (c *Client) Run(ctx context.Context, id string) (*Run, error) {
	var r Run
	return &r, c.Do(ctx, "GET", "/api/v1/runs/"+pathEscape(id), nil, &r)
}

// CancelRun cancels a run that has not ended, of any kind; a final run is a
// 409 *Error naming its status.
func (c *Client) CancelRun(ctx context.Context, id string) (*Run, error) {
	var r Run
	return &r, c.Do(ctx, "POST", "/api/v1/runs/"+pathEscape(id)+"/cancel", nil, &r)
}

// Frame is one frame of a run's event stream: its sequence (from 1) and
// the E2A response frame as JSON.
type Frame struct {
	Seq  int64           `json:"seq"`
	Data json.RawMessage `json:"frame"`
}

// StreamEnd is how a run's event stream ended: the frames sent, the last
// sequence, and whether the run's final frame was among them.
type StreamEnd struct {
	RunID   string `json:"run_id"`
	Frames  int64  `json:"frames"`
	LastSeq int64  `json:"last_seq"`
	Ended   bool   `json:"ended"`
}

// maxEventBytes bounds one event of a stream (a frame carries a run's
// result, which the server stores up to 64 MiB).
const maxEventBytes = 80 << 20

// RunEvents follows a run's frames after sequence after (0: from the
// first): stored ones, then live ones until the run's final frame, calling
// fn for each. It returns how the stream ended. An error of fn stops the
// stream and is returned. The stream has no time limit of its own: bound
// it with ctx.
func (c *Client) RunEvents(ctx context.Context, id string, after int64, fn func(Frame) error) (*StreamEnd, error) {
	path := "/api/v1/runs/" + pathEscape(id) + "/events"
	if after > 0 {
		path += "?after=" + strconv.FormatInt(after, 10)
	}
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	// A stream lasts as long as its run: the client's timeout would cut it.
	hc := *c.http
	hc.Timeout = 0
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, decodeError(resp, raw)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// Nothing after `after`: the answer is the stream's summary.
		var end StreamEnd
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &end); err != nil {
			return nil, fmt.Errorf("the events of run %s: the answer is neither a stream nor its summary: %v", id, err)
		}
		return &end, nil
	}
	var end *StreamEnd
	err = ReadSSE(resp.Body, maxEventBytes, func(ev SSEEvent) error {
		switch ev.Event {
		case "frame":
			seq, err := strconv.ParseInt(ev.ID, 10, 64)
			if err != nil || seq < 1 {
				return fmt.Errorf("the events of run %s: frame id %q is not a sequence number", id, ev.ID)
			}
			return fn(Frame{Seq: seq, Data: json.RawMessage(ev.Data)})
		case "end":
			end = &StreamEnd{}
			if err := json.Unmarshal([]byte(ev.Data), end); err != nil {
				return fmt.Errorf("the events of run %s: the end event is not its summary: %v", id, err)
			}
			return errStop
		case "error":
			e := &Error{Status: resp.StatusCode}
			var body struct {
				Code    string `json:"code"`
				Type    string `json:"type"`
				Message string `json:"message"`
			}
			_ = json.Unmarshal([]byte(ev.Data), &body)
			e.Type, e.Message = body.Code, body.Message
			if e.Type == "" {
				e.Type = body.Type
			}
			if e.Message == "" {
				e.Message = ev.Data
			}
			return e
		}
		return nil // an event this client does not know: skipped
	})
	if err != nil && err != errStop {
		return nil, err
	}
	if end == nil {
		return nil, fmt.Errorf("the events of run %s: the stream ended before its end event", id)
	}
	return end, nil
}

// AuditQuery filters and pages the audit trail; zero fields do not filter.
type AuditQuery struct {
	Account  string // an account id
	Method   string // e.g. workflow.execute
	Decision string // allow, deny or limited
	Since    time.Time
	Until    time.Time
	Cursor   string
	Limit    int
}

// AuditRecord is one record of the audit trail.
type AuditRecord struct {
	ID        int64           `json:"id"`
	Time      time.Time       `json:"time"`
	RequestID string          `json:"request_id"`
	AgentID   string          `json:"agent_id"`
	Method    string          `json:"method"`
	Decision  string          `json:"decision"`
	LatencyMs int64           `json:"latency_ms"`
	Status    string          `json:"status"`
	Operation string          `json:"operation,omitempty"`
	ErrorCode string          `json:"error_code,omitempty"`
	Details   json.RawMessage `json:"details,omitempty"`
}

// Audit reads one page of the audit trail (admin), newest first, and the
// cursor of the next page ("" at the end).
func (c *Client) Audit(ctx context.Context, q AuditQuery) ([]AuditRecord, string, error) {
	v := url.Values{}
	setNonEmpty(v, "account", q.Account)
	setNonEmpty(v, "method", q.Method)
	setNonEmpty(v, "decision", q.Decision)
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	setPage(v, q.Cursor, q.Limit)
	return getPage[AuditRecord](ctx, c, withQuery("/api/v1/admin/audit", v), "records")
}

// CapabilityEntry is one published version of a capability in the
// server's A2S registry. Document is there when one entry is read, not in
// lists; Versions is there in lists.
type CapabilityEntry struct {
	Namespace   string    `json:"namespace"`
	ID          string    `json:"id"`
	Version     string    `json:"version"`
	Checksum    string    `json:"checksum"`
	Type        string    `json:"type,omitempty"`
	Level       string    `json:"level,omitempty"`
	AuditStatus string    `json:"audit_status,omitempty"`
	Description string    `json:"description,omitempty"`
	PublishedAt time.Time `json:"published_at,omitzero"`
	PublishedBy string    `json:"published_by,omitempty"`
	Format      string    `json:"format"`
	Document    string    `json:"document,omitempty"`
	Versions    int       `json:"versions,omitempty"`
}

// Capabilities lists one page of the registry's capabilities under a
// namespace prefix ("" for all), each at its latest version.
func (c *Client) Capabilities(ctx context.Context, namespace, cursor string, limit int) ([]CapabilityEntry, string, error) {
	v := url.Values{}
	setNonEmpty(v, "namespace", namespace)
	setPage(v, cursor, limit)
	return getPage[CapabilityEntry](ctx, c, withQuery("/api/v1/a2s/registry", v), "capabilities")
}

// Capability reads one capability NS/ID (ID alone: the default namespace)
// at the highest version meeting an npm-style constraint ("" or "latest":
// the latest), with its document.
func (c *Client) Capability(ctx context.Context, ref, version string) (*CapabilityEntry, error) {
	segs := strings.Split(ref, "/")
	for i, s := range segs {
		segs[i] = pathEscape(s)
	}
	v := url.Values{}
	setNonEmpty(v, "version", version)
	var e CapabilityEntry
	return &e, c.Do(ctx, "GET", withQuery("/api/v1/a2s/registry/"+strings.Join(segs, "/"), v), nil, &e)
}

// AgentWorkflowRun is an agent workflow run as its list shows it.
type AgentWorkflowRun struct {
	RunID      string     `json:"run_id"`
	WorkflowID string     `json:"workflow_id"`
	Name       string     `json:"name"`
	Version    string     `json:"version"`
	Status     string     `json:"status"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// AgentWorkflowRuns lists one page of the account's agent workflow runs,
// newest first, with any of the statuses given (none: all).
func (c *Client) AgentWorkflowRuns(ctx context.Context, status []string, cursor string, limit int) ([]AgentWorkflowRun, string, error) {
	v := url.Values{}
	if len(status) > 0 {
		v.Set("status", strings.Join(status, ","))
	}
	setPage(v, cursor, limit)
	return getPage[AgentWorkflowRun](ctx, c, withQuery("/api/v1/agent-workflows/runs", v), "runs")
}

// getPage reads one page of a list: the items under member and the cursor
// of the next page ("" at the end, or when the answer has none).
func getPage[T any](ctx context.Context, c *Client, path, member string) ([]T, string, error) {
	var r map[string]json.RawMessage
	if err := c.Do(ctx, "GET", path, nil, &r); err != nil {
		return nil, "", err
	}
	var items []T
	if raw, ok := r[member]; ok {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, "", fmt.Errorf("GET %s: %s is not the list expected: %v", path, member, err)
		}
	}
	var next string
	if raw, ok := r["next_cursor"]; ok {
		if err := json.Unmarshal(raw, &next); err != nil {
			return nil, "", fmt.Errorf("GET %s: next_cursor is not a string: %v", path, err)
		}
	}
	return items, next, nil
}

func setNonEmpty(v url.Values, k, s string) {
	if s != "" {
		v.Set(k, s)
	}
}

func setPage(v url.Values, cursor string, limit int) {
	setNonEmpty(v, "cursor", cursor)
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
}

func withQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}
