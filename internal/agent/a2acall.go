package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// An agent registered with protocol a2a is called with a2a-go's client: one
// A2A message per task, whose data part is the task's input, sent as the
// task's message id (the idempotency key an A2A agent can keep), the
// registry's credentials on every request to the agent's own host, each
// attempt bounded by the agent's timeout and retried, with the circuit
// breaker, as a task agent's is. The agent's card says how to reach it; it
// is read under the egress rules and kept for a2aCardTTL.

// a2aCancelTimeout bounds the cancel sent to a remote task whose caller
// gave up.
const a2aCancelTimeout = 5 * time.Second

// a2aAttempt is one attempt of an A2A call.
func (inv *Invoker) a2aAttempt(ctx context.Context, c *call, n int) (json.RawMessage, *result) {
	actx, cancel := context.WithTimeout(ctx, c.entry.Timeout)
	defer cancel()
	actx = egress.WithSensitive(actx, egress.Sensitive{Headers: c.sensitive})
	card, res := inv.a2aCard(actx, ctx, c)
	if res != nil {
		return nil, res
	}
	client, fe := inv.a2aClient(actx, card, c)
	if fe != nil {
		return nil, &result{err: fe, counts: true}
	}
	defer func() { _ = client.Destroy() }()
	var input any
	if err := json.Unmarshal(c.input, &input); err != nil {
		return nil, &result{err: fault.New(fault.Invalid, "the input of agent %s is not JSON", c.name).WithDetail("agent", c.name)}
	}
	msg := &a2a.Message{ID: c.taskID, Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewDataPart(input)},
		Metadata: map[string]any{"correlation_id": c.corr}}
	if cont, ok := op.AgentContinuationFrom(ctx); ok {
		// The answer to a remote task's question: the next message of that
		// task, in its context. An answer that is only text goes as text,
		// which is what an agent that asked in words reads.
		msg.TaskID, msg.ContextID = a2a.TaskID(cont.TaskID), cont.ContextID
		if m, ok := input.(map[string]any); ok && len(m) == 1 {
			if txt, ok := m["text"].(string); ok {
				msg.Parts = a2a.ContentParts{a2a.NewTextPart(txt)}
			}
		}
	}
	req := &a2a.SendMessageRequest{Message: msg}
	inv.o.Logger.Debug("calling A2A agent", "agent", c.name, "taskId", c.taskID, "attempt", n)

	var task *a2a.Task
	final, err := inv.a2aSend(actx, client, card, req, &task, newUpdater(ctx, c.scrub), msg.TaskID != "")
	if err != nil {
		if task != nil && ctx.Err() != nil {
			// The caller gave up: the remote task is cancelled too.
			cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), a2aCancelTimeout)
			_, _ = client.CancelTask(cctx, &a2a.CancelTaskRequest{ID: task.ID})
			stop()
		}
		return nil, inv.a2aFailure(ctx, actx, c, err)
	}
	return inv.a2aOutcome(c, final)
}

// a2aClient is a2a-go's client for card, speaking whichever transport and
// protocol version it offers, over the call's HTTP client.
func (inv *Invoker) a2aClient(ctx context.Context, card *a2a.AgentCard, c *call) (*a2aclient.Client, *fault.Error) {
	hc := inv.a2aHTTPClient(c)
	client, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: hc}))
	if err != nil {
		return nil, upstream(c.name, "has an agent card sluice cannot call through: %s", c.scrub.ScrubText(err.Error()))
	}
	return client, nil
}

// CancelRemote cancels the remote task taskID of A2A agent name: a run
// that waited on it for input was cancelled, and no call of it is under
// way to cancel it. It takes at most a2aCancelTimeout; an agent that is
// not an A2A agent has no remote task (Invalid).
func (inv *Invoker) CancelRemote(ctx context.Context, name, taskID string) error {
	c, err := inv.prepare(ctx, name, "", nil, "")
	if err != nil {
		return err
	}
	if c.entry.Protocol != agenthttp.ProtocolA2A {
		return fault.New(fault.Invalid, "agent %s is not an A2A agent: it has no remote task to cancel", name).WithDetail("agent", name)
	}
	cctx, cancel := context.WithTimeout(ctx, a2aCancelTimeout)
	defer cancel()
	cctx = egress.WithSensitive(cctx, egress.Sensitive{Headers: c.sensitive})
	card, res := inv.a2aCard(cctx, ctx, c)
	if res != nil {
		return res.err
	}
	client, fe := inv.a2aClient(cctx, card, c)
	if fe != nil {
		return fe
	}
	defer func() { _ = client.Destroy() }()
	if _, err := client.CancelTask(cctx, &a2a.CancelTaskRequest{ID: a2a.TaskID(taskID)}); err != nil {
		return inv.a2aFailure(ctx, cctx, c, err).err
	}
	return nil
}

// a2aSend sends req and returns the terminal answer: a message, or a task in
// a state where the agent waits for nothing more from itself (completed,
// failed, cancelled, rejected, or asking for input). The message is sent to
// return at once, so that the remote task's id is known before anything is
// waited for (a caller who gives up cancels it: *task); the task is then
// followed on its stream when the agent streams, else read until it
// settles.
//
// Updates on the way (status changes and messages, artifact updates) go to
// u, which a caller asked for with WithUpdates (nil: nobody listens).
//
// A message that continues a task which waited (cont) is answered at once
// with the task as it was, still asking: that question is stale, and the
// task is followed until it has moved on from it.
func (inv *Invoker) a2aSend(ctx context.Context, client *a2aclient.Client, card *a2a.AgentCard, req *a2a.SendMessageRequest, task **a2a.Task, u *updater, cont bool) (a2a.SendMessageResult, error) {
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	res, err := client.SendMessage(ctx, req)
	if err != nil {
		return nil, err
	}
	t, ok := res.(*a2a.Task)
	if !ok {
		return res, nil
	}
	*task = t
	var stale *a2a.TaskStatus
	if cont && waits(t.Status.State) {
		s := t.Status
		stale = &s
	}
	settled := func(s a2a.TaskStatus) bool {
		switch {
		case stale == nil:
			return settled(s.State)
		case !waits(s.State) || !sameStatus(s, *stale):
			stale = nil // it moved on: from now on its state is news
			return settled(s.State)
		}
		return false
	}
	u.status(t, t.Status)
	if settled(t.Status) {
		return t, nil
	}
	if card.Capabilities.Streaming {
		for ev, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: t.ID}) {
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				break // read it instead
			}
			switch e := ev.(type) {
			case *a2a.Message:
				return e, nil
			case *a2a.Task:
				t = e
				u.status(t, t.Status)
			case *a2a.TaskStatusUpdateEvent:
				t.Status = e.Status
				u.status(t, t.Status)
			case *a2a.TaskArtifactUpdateEvent:
				t.Artifacts = mergeArtifact(t.Artifacts, e)
				u.artifact(e)
			}
			*task = t
			if settled(t.Status) {
				return t, nil
			}
		}
	}
	return a2aPoll(ctx, client, t, u, settled)
}

// waits: a task in state s waits for its caller.
func waits(s a2a.TaskState) bool {
	return s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

// sameStatus: a and b are one status seen twice (same state, message and
// time).
func sameStatus(a, b a2a.TaskStatus) bool {
	if a.State != b.State || (a.Message == nil) != (b.Message == nil) || (a.Timestamp == nil) != (b.Timestamp == nil) {
		return false
	}
	if a.Message != nil && a.Message.ID != b.Message.ID {
		return false
	}
	return a.Timestamp == nil || a.Timestamp.Equal(*b.Timestamp)
}

// a2aPoll reads a task that is not settled until it is (or ctx ends),
// waiting 10 ms, then twice as long each time, up to half a second.
func a2aPoll(ctx context.Context, client *a2aclient.Client, t *a2a.Task, u *updater, settled func(a2a.TaskStatus) bool) (a2a.SendMessageResult, error) {
	wait := 10 * time.Millisecond
	for !settled(t.Status) {
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
		wait = min(2*wait, 500*time.Millisecond)
		got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: t.ID})
		if err != nil {
			return nil, err
		}
		t = got
		u.status(t, t.Status)
	}
	return t, nil
}

// settled reports whether a task in state s waits for nothing more from
// its agent.
func settled(s a2a.TaskState) bool {
	switch s {
	case a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected,
		a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		return true
	}
	return false
}

// mergeArtifact applies an artifact update to a task's artifacts.
func mergeArtifact(arts []*a2a.Artifact, e *a2a.TaskArtifactUpdateEvent) []*a2a.Artifact {
	if e.Artifact == nil {
		return arts
	}
	for _, a := range arts {
		if a.ID == e.Artifact.ID {
			if e.Append {
				a.Parts = append(a.Parts, e.Artifact.Parts...)
			} else {
				*a = *e.Artifact
			}
			return arts
		}
	}
	return append(arts, e.Artifact)
}

// a2aOutcome is the task's output, or its failure, from the agent's answer.
func (inv *Invoker) a2aOutcome(c *call, final a2a.SendMessageResult) (json.RawMessage, *result) {
	var parts a2a.ContentParts
	switch r := final.(type) {
	case *a2a.Message:
		parts = r.Parts
	case *a2a.Task:
		switch r.Status.State {
		case a2a.TaskStateCompleted:
			for _, a := range r.Artifacts {
				parts = append(parts, a.Parts...)
			}
			if len(parts) == 0 && r.Status.Message != nil {
				parts = r.Status.Message.Parts
			}
		case a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
			return nil, &result{err: inputRequired(c, r), agentAnswered: true}
		default:
			return nil, &result{err: upstream(c.name, "ended its task %s: %s", stateWord(r.Status.State),
				clip(c.scrub.ScrubText(taskStatusMessage(r)))).WithDetail("state", string(r.Status.State)).WithDetail("remoteTaskId", string(r.ID)),
				agentAnswered: true}
		}
	}
	out, err := outputOf(parts)
	if err != nil {
		return nil, &result{err: upstream(c.name, "answered with output sluice cannot read: %s", err), counts: true}
	}
	if len(out) > inv.o.MaxResponseBytes {
		return nil, &result{err: upstream(c.name, "answered with more than %d bytes", inv.o.MaxResponseBytes), counts: true}
	}
	return c.scrub.ScrubJSON(out), nil
}

// outputOf is a task's output from the parts of its answer: the one data
// part's value when that is all there is; the text when it is all text
// ({"text": ...}); otherwise {"data": [values...], "text": ...}. Files are
// named by their URL or left out (raw bytes are not carried).
func outputOf(parts a2a.ContentParts) (json.RawMessage, error) {
	var data []any
	var text []string
	var files []any
	for _, p := range parts {
		switch v := p.Content.(type) {
		case a2a.Data:
			data = append(data, v.Value)
		case a2a.Text:
			text = append(text, string(v))
		case a2a.URL:
			files = append(files, map[string]any{"url": string(v), "media_type": p.MediaType, "filename": p.Filename})
		}
	}
	switch {
	case len(data) == 1 && len(text) == 0 && len(files) == 0:
		return json.Marshal(data[0])
	case len(data) == 0 && len(files) == 0:
		return json.Marshal(map[string]any{"text": strings.Join(text, "\n")})
	}
	out := map[string]any{}
	if len(data) > 0 {
		out["data"] = data
	}
	if len(text) > 0 {
		out["text"] = strings.Join(text, "\n")
	}
	if len(files) > 0 {
		out["files"] = files
	}
	return json.Marshal(out)
}

// inputRequired is the failure of a call whose remote task waits for its
// caller: the question (the task's status message, scrubbed and bounded)
// and the remote task's ids travel in the detail op.DetailInputRequired,
// which a durable caller turns into a pending decision and a synchronous
// one into an answer that says how to go on.
func inputRequired(c *call, r *a2a.Task) *fault.Error {
	p := &op.AgentPending{Agent: c.name, State: string(r.Status.State), TaskID: string(r.ID), ContextID: r.ContextID}
	if r.Status.Message != nil && len(r.Status.Message.Parts) > 0 {
		if q, err := outputOf(r.Status.Message.Parts); err == nil && len(q) <= agenthttp.MaxErrorMessageBytes*8 {
			var v any
			if json.Unmarshal(c.scrub.ScrubJSON(q), &v) == nil {
				p.Question = v
			}
		}
	}
	return upstream(c.name, "asks for %s before it goes on: %s", askedFor(r.Status.State), clip(c.scrub.ScrubText(taskStatusMessage(r)))).
		WithDetail("state", string(r.Status.State)).WithDetail("remoteTaskId", string(r.ID)).
		WithDetail(op.DetailInputRequired, p.Map()).
		WithSuggestions("Answer it as the next message of the same remote task: call the agent again with the answer as input " +
			"and remote_task_id " + quote(string(r.ID)) + " (agent.invoke), or answer the run that waits (a workflow step)")
}

func askedFor(s a2a.TaskState) string {
	if s == a2a.TaskStateAuthRequired {
		return "authorization"
	}
	return "input"
}

func stateWord(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateFailed:
		return "failed"
	case a2a.TaskStateCanceled:
		return "cancelled"
	case a2a.TaskStateRejected:
		return "rejected"
	}
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}

// taskStatusMessage is the text of a task's status message ("(no message)" when it has none).
func taskStatusMessage(t *a2a.Task) string {
	if t.Status.Message == nil {
		return "(no message)"
	}
	var text []string
	for _, p := range t.Status.Message.Parts {
		if s := p.Text(); s != "" {
			text = append(text, s)
		}
	}
	if len(text) == 0 {
		return "(no message)"
	}
	return strings.Join(text, " ")
}

// a2aFailure classifies an error of an A2A call: the caller's end, the
// attempt's timeout, an egress refusal, an A2A error the agent answered
// with, or a failure to reach it.
func (inv *Invoker) a2aFailure(ctx, actx context.Context, c *call, err error) *result {
	if d, ok := egress.IsDenied(err); ok {
		return &result{err: fault.New(fault.PermissionDenied, "agent %s cannot be reached: %s", c.name, d.Error()).
			WithDetail("agent", c.name).WithCause(err)}
	}
	if ctx.Err() != nil || actx.Err() != nil {
		return inv.transportFailure(ctx, actx, c, err)
	}
	for _, known := range []error{a2a.ErrTaskNotFound, a2a.ErrUnsupportedOperation, a2a.ErrInvalidParams, a2a.ErrInvalidRequest,
		a2a.ErrMethodNotFound, a2a.ErrUnsupportedContentType, a2a.ErrVersionNotSupported, a2a.ErrExtensionSupportRequired, a2a.ErrUnauthenticated, a2a.ErrUnauthorized} {
		if errors.Is(err, known) {
			return &result{err: upstream(c.name, "refused the message: %s", clip(c.scrub.ScrubText(err.Error()))), agentAnswered: true}
		}
	}
	return &result{err: fault.New(fault.Unavailable, "agent %s cannot be reached: %s", c.name, clip(c.scrub.ScrubText(err.Error()))).
		WithDetail("agent", c.name).WithCause(err), retry: true, counts: true}
}

// a2aHTTPClient is the invoker's client for one call: the registry's
// credentials and the call's correlation headers go on every request to
// the agent's registered host, and on no other; every answer is bounded.
func (inv *Invoker) a2aHTTPClient(c *call) *http.Client {
	hc := *inv.client
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	host := hostOf(c.entry.URL)
	hc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host == host {
			r = r.Clone(r.Context())
			for k, v := range c.header {
				if k == "Content-Type" || k == "Accept" {
					continue // the transport's own: JSON, or an event stream
				}
				r.Header[k] = v
			}
		}
		resp, err := base.RoundTrip(r)
		if err == nil {
			resp.Body = limitBody(resp.Body, int64(inv.o.MaxResponseBytes)+1<<16)
		}
		return resp, err
	})
	// A stream may outlive one request's timeout: the attempt's context
	// bounds it instead.
	hc.Timeout = 0
	return &hc
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
