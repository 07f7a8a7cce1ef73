package a2aserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/agentflow"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// handler is one call's a2asrv.RequestHandler: p calls agent ("" at the
// server's own endpoint).
type handler struct {
	pushes
	s     *Server
	p     *account.Principal
	agent string
}

var _ a2asrv.RequestHandler = (*handler)(nil)

// refused is the error of a call to an agent the account may not call: an
// A2A permission error (no task is made, so there is none to reject).
func (h *handler) refused() error {
	if h.agent == "" || h.p.Permissions.AllowsAgent(h.agent) {
		return nil
	}
	return a2a.NewError(a2a.ErrUnauthorized, fmt.Sprintf("agent %q is not in this account's agents", h.agent))
}

// run is one of p's tasks: a run of an A2A agent workflow (of h.agent, at
// an agent's endpoint). Another account's run, and a run that is not an
// A2A task, are TaskNotFound.
func (h *handler) run(ctx context.Context, id a2a.TaskID) (*agentflow.Run, error) {
	if err := h.refused(); err != nil {
		return nil, err
	}
	r, err := h.s.cfg.Flows.Get(ctx, h.p.ID, string(id))
	if err != nil {
		return nil, a2aError(err)
	}
	if agent, ok := agentOf(r); !ok || h.agent != "" && agent != h.agent {
		return nil, a2a.NewError(a2a.ErrTaskNotFound, fmt.Sprintf("task %s not found", id))
	}
	return r, nil
}

// start starts the run of req's message: a one-step agent workflow calling
// h.agent, whose client id is the messageId (sending a message again
// answers the first one's task).
func (h *handler) start(ctx context.Context, req *a2a.SendMessageRequest) (a2a.TaskID, error) {
	if h.agent == "" {
		return "", invalid("this endpoint fronts no one agent: send messages to an agent's endpoint, /a2a/<agent>/")
	}
	if err := h.refused(); err != nil {
		return "", err
	}
	msg := req.Message
	switch {
	case msg == nil:
		return "", invalid("message is required")
	case msg.ID == "":
		return "", invalid("message.messageId is required")
	case msg.TaskID != "":
		return h.answer(ctx, msg)
	}
	input, err := inputOf(msg)
	if err != nil {
		return "", err
	}
	contextID, err := contextOf(msg)
	if err != nil {
		return "", err
	}
	wf, err := oneStep(h.agent, contextID, input)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return "", invalid("the message's input does not encode as JSON")
	}
	id, err := h.s.cfg.Flows.Start(ctx, h.p.ID, wf, raw, clientPrefix+msg.ID)
	if err != nil {
		if fault.KindOf(err) == fault.Conflict {
			return "", invalid("messageId %q was sent before with another message", msg.ID)
		}
		return "", a2aError(err)
	}
	return a2a.TaskID(id), nil
}

// answer is a message on a task that exists: a task whose agent asked for
// input (its run waits: INPUT_REQUIRED) takes it as the answer, which is
// sent to the agent as the next message of its own remote task; the run
// goes on before this returns. Any other task takes no more messages.
func (h *handler) answer(ctx context.Context, msg *a2a.Message) (a2a.TaskID, error) {
	r, err := h.run(ctx, msg.TaskID)
	if err != nil {
		return "", err
	}
	if r.Status != store.StatusWaiting {
		return "", a2a.NewError(a2a.ErrUnsupportedOperation,
			fmt.Sprintf("task %s is %s and takes no more messages; send a new message without taskId", r.RunID, stateOf(r.Status)))
	}
	input, err := inputOf(msg)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return "", invalid("the message's input does not encode as JSON")
	}
	if _, err := h.s.cfg.Runs.Answer(ctx, h.p, r.RunID, raw); err != nil {
		if fe := fault.From(err); fe.Kind == fault.Conflict {
			// Answered already by another message: the task takes no more now.
			return "", a2a.NewError(a2a.ErrUnsupportedOperation, fe.Message)
		}
		return "", a2aError(err)
	}
	return msg.TaskID, nil
}

// SendMessage starts a task. Blocking (the default) waits for the run to
// end and answers the task with the agent's output; returnImmediately
// answers it as it is now (submitted, or working).
func (h *handler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	id, err := h.startPushed(ctx, req)
	if err != nil {
		return nil, err
	}
	var n *int
	if req.Config != nil {
		n = req.Config.HistoryLength
	}
	var t *a2a.Task
	if req.Config != nil && req.Config.ReturnImmediately {
		t, err = h.reader(id)(ctx)
	} else {
		if err := h.s.awaitEnd(ctx, h.p, id, h.reader(id), func(execution.Frame) error { return nil }); err != nil {
			return nil, a2aError(err)
		}
		t, err = settled(ctx, h.reader(id))
	}
	if err != nil {
		return nil, err
	}
	return h.s.history(ctx, h.p.ID, t, n), nil
}

// startPushed starts req's task (start) with the push notification config
// the request carries, checked before the task starts.
func (h *handler) startPushed(ctx context.Context, req *a2a.SendMessageRequest) (a2a.TaskID, error) {
	if err := h.s.checkConfigPush(req); err != nil {
		return "", err
	}
	id, err := h.start(ctx, req)
	if err != nil {
		return "", err
	}
	return id, h.s.configPush(ctx, h.p.ID, req, id)
}

// reader reads task id.
func (h *handler) reader(id a2a.TaskID) taskReader {
	return func(ctx context.Context) (*a2a.Task, error) {
		r, err := h.run(ctx, id)
		if err != nil {
			return nil, err
		}
		return taskOf(r), nil
	}
}

// GetTask reads the task with its history (historyLength: the last n
// messages).
func (h *handler) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	t, err := h.reader(req.ID)(ctx)
	if err != nil {
		return nil, err
	}
	return h.s.history(ctx, h.p.ID, t, req.HistoryLength), nil
}

// CancelTask cancels the task's run through the run service (on any
// gateway); a task already final is TaskNotCancelable.
func (h *handler) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	if _, err := h.run(ctx, req.ID); err != nil {
		return nil, err
	}
	if _, err := h.s.cfg.Runs.Cancel(ctx, h.p, string(req.ID)); err != nil {
		return nil, a2aError(err)
	}
	r, err := h.run(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	return taskOf(r), nil
}

// ListTasks pages through the account's A2A tasks of this agent (at
// /a2a/: of every agent; list).
func (h *handler) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if err := h.refused(); err != nil {
		return nil, err
	}
	return h.s.list(ctx, h.p, req, store.KindAgentWorkflow, func(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
		return h.reader(id)(ctx)
	})
}

// GetExtendedAgentCard is the card of this endpoint as the caller sees it.
func (h *handler) GetExtendedAgentCard(ctx context.Context, _ *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	if err := h.refused(); err != nil {
		return nil, err
	}
	if h.s.cfg.Cards == nil {
		return nil, a2a.ErrExtendedCardNotConfigured
	}
	card, err := h.s.cfg.Cards(ctx, h.p, h.agent)
	if err != nil {
		return nil, a2aError(err)
	}
	return card, nil
}
