package a2aserver

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// Capabilities runs A2S capabilities (internal/caprun's Service): each one
// the account may run is an A2A agent at /a2a-cap/<ns>/<id>/ with one
// skill. A message's data part is the run's inputs; a run that waits for a
// decision is an INPUT_REQUIRED task, and the next message on the task
// (its taskId set) is the answer. A capability run is synchronous (it runs
// while the call waits, checkpointed), so SendMessage always answers the
// task as the run left it: ended, or waiting for input.
type Capabilities interface {
	Run(ctx context.Context, p *account.Principal, req caprun.Request) (*capability.Result, error)
	Get(ctx context.Context, p *account.Principal, runID string) (*caprun.View, error)
	Cancel(ctx context.Context, p *account.Principal, runID string) (*caprun.View, error)
	Decide(ctx context.Context, p *account.Principal, runID string, answer json.RawMessage) (*capability.Result, error)
}

// ForCapability is the request handler of one call by p to capability ref
// (NS/ID).
func (s *Server) ForCapability(p *account.Principal, ref string) a2asrv.RequestHandler {
	h := &capHandler{s: s, p: p, ref: ref}
	h.pushes = pushes{s: s, p: p, check: func(ctx context.Context, id a2a.TaskID) error { _, err := h.task(ctx, id); return err }}
	return h
}

// capHandler is one call's handler at a capability's endpoint.
type capHandler struct {
	pushes
	s   *Server
	p   *account.Principal
	ref string
}

var _ a2asrv.RequestHandler = (*capHandler)(nil)

// task reads one of p's runs of the capability as a task; another
// account's run, or a run of something else, is TaskNotFound.
func (h *capHandler) task(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	if h.s.cfg.Capabilities == nil {
		return nil, a2a.ErrUnsupportedOperation
	}
	v, err := h.s.cfg.Capabilities.Get(ctx, h.p, string(id))
	if err != nil {
		return nil, a2aError(err)
	}
	if v.Namespace+"/"+v.ID != h.ref {
		return nil, a2a.NewError(a2a.ErrTaskNotFound, fmt.Sprintf("task %s not found", id))
	}
	rec, err := h.s.cfg.Records.GetExecution(ctx, h.p.ID, string(id))
	if err != nil {
		return nil, a2aError(err)
	}
	return capTaskOfRecord(rec), nil
}

func (h *capHandler) reader(id a2a.TaskID) taskReader {
	return func(ctx context.Context) (*a2a.Task, error) { return h.task(ctx, id) }
}

// capTaskOf is a capability run as a task: the outputs as a data artifact
// once it succeeded; the pending question as the status message (a text
// part and a data part holding it) while it waits.
func capTaskOf(runID, contextID string, status store.Status, res *capability.Result) *a2a.Task {
	t := &a2a.Task{ID: a2a.TaskID(runID), ContextID: contextID, Status: a2a.TaskStatus{State: taskState(status, res.Errors)},
		Metadata: map[string]any{"run_status": string(status)}}
	msg := func(parts ...*a2a.Part) *a2a.Message {
		return &a2a.Message{ID: runID + "/" + string(status), Role: a2a.MessageRoleAgent, TaskID: t.ID, ContextID: contextID, Parts: parts}
	}
	switch {
	case status == store.StatusSuccess:
		outputs := res.Outputs
		if outputs == nil {
			outputs = map[string]any{}
		}
		t.Artifacts = []*a2a.Artifact{{ID: outputArtifact, Name: "outputs", Parts: a2a.ContentParts{a2a.NewDataPart(outputs)}}}
		t.Status.Message = msg(a2a.NewTextPart("the capability ran"))
	case status == store.StatusWaiting && res.Pending != nil:
		text := res.Pending.Prompt
		if text == "" {
			text = "task " + res.Pending.Task + " waits for a decision"
		}
		var pending map[string]any
		b, _ := json.Marshal(res.Pending)
		_ = json.Unmarshal(b, &pending)
		t.Status.Message = msg(a2a.NewTextPart(text), a2a.NewDataPart(pending))
	case len(res.Errors) > 0:
		t.Status.Message = msg(a2a.NewTextPart(res.Errors[0].Message))
	}
	return t
}

// SendMessage runs the capability with the message's data part as its
// inputs, or, on a task waiting for a decision (taskId set), answers it
// with the message's data part.
func (h *capHandler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if h.s.cfg.Capabilities == nil {
		return nil, a2a.ErrUnsupportedOperation
	}
	msg := req.Message
	switch {
	case msg == nil:
		return nil, invalid("message is required")
	case msg.ID == "":
		return nil, invalid("message.messageId is required")
	}
	if err := h.s.checkConfigPush(req); err != nil {
		return nil, err
	}
	var n *int
	if req.Config != nil {
		n = req.Config.HistoryLength
	}
	input, err := inputOf(msg)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, invalid("the message's data does not encode as JSON")
	}
	if msg.TaskID != "" {
		if _, err := h.task(ctx, msg.TaskID); err != nil {
			return nil, err
		}
		if _, err := h.s.cfg.Capabilities.Decide(ctx, h.p, string(msg.TaskID), raw); err != nil {
			if fe := fault.From(err); fe.Kind == fault.Conflict {
				// Answered already, or not waiting: the task takes no message now.
				return nil, a2a.NewError(a2a.ErrUnsupportedOperation, fe.Message)
			}
			return nil, a2aError(err)
		}
		return h.answer(ctx, req, msg.TaskID, n)
	}
	contextID, err := contextOf(msg)
	if err != nil {
		return nil, err
	}
	res, err := h.s.cfg.Capabilities.Run(ctx, h.p, caprun.Request{Ref: h.ref, Inputs: input, SessionID: contextID, ClientID: clientPrefix + msg.ID})
	if err != nil {
		return nil, a2aError(err)
	}
	return h.answer(ctx, req, a2a.TaskID(res.RunID), n)
}

// answer is the task a message left, with the push notification config
// the message carries set on it, and its history.
func (h *capHandler) answer(ctx context.Context, req *a2a.SendMessageRequest, id a2a.TaskID, n *int) (*a2a.Task, error) {
	if err := h.s.configPush(ctx, h.p.ID, req, id); err != nil {
		return nil, err
	}
	t, err := h.task(ctx, id)
	if err != nil {
		return nil, err
	}
	return h.s.history(ctx, h.p.ID, t, n), nil
}

// SendStreamingMessage runs the message (SendMessage) and streams the task
// it leaves: the task, its artifacts, its last status.
func (h *capHandler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	res, err := h.SendMessage(ctx, req)
	if err != nil {
		return failed(err)
	}
	task := res.(*a2a.Task)
	return func(yield func(a2a.Event, error) bool) {
		if yield(task, nil) {
			lastEvents(task, yield)
		}
	}
}

func (h *capHandler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return h.s.follow(ctx, h.p, req.ID, h.reader(req.ID), false)
}

func (h *capHandler) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	t, err := h.task(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	return h.s.history(ctx, h.p.ID, t, req.HistoryLength), nil
}

// CancelTask cancels a run that has not ended; an ended one is
// TaskNotCancelable.
func (h *capHandler) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	t, err := h.task(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	if t.Status.State.Terminal() {
		return nil, a2a.NewError(a2a.ErrTaskNotCancelable, fmt.Sprintf("task %s is %s", req.ID, t.Status.State))
	}
	if _, err := h.s.cfg.Runs.Cancel(ctx, h.p, string(req.ID)); err != nil {
		return nil, a2aError(err)
	}
	return h.task(ctx, req.ID)
}

// ListTasks pages through the account's runs of this capability (list).
func (h *capHandler) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	return h.s.list(ctx, h.p, req, store.KindCapability, h.task)
}

// GetExtendedAgentCard is the capability's card.
func (h *capHandler) GetExtendedAgentCard(ctx context.Context, _ *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	if h.s.cfg.CapabilityCard == nil {
		return nil, a2a.ErrExtendedCardNotConfigured
	}
	card, err := h.s.cfg.CapabilityCard(ctx, h.p, h.ref)
	if err != nil {
		return nil, a2aError(err)
	}
	return card, nil
}
