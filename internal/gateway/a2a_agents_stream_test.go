package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// talker is an A2A agent built with a2a-go's server whose data part's
// "mode" says what it does: "stream" reports progress (a WORKING status
// whose message is "thinking", a text artifact "part one", a data artifact
// {"n":1}) and completes with {"done":true}; "ask" asks "which color?" and
// completes with {"color": <the answer>} on the task's next message;
// "hang" works until it is cancelled; "fail" fails with "no budget left".
// It holds its progress until its caller follows the task (subscribed), so
// that every update reaches the stream.
type talker struct {
	url       string
	mu        sync.Mutex
	subs      map[string]chan struct{}
	cancelled []string
	started   chan struct{} // closed once a "hang" task is followed by its caller
	once      sync.Once
}

func newTalker(t *testing.T) *talker {
	t.Helper()
	a := &talker{subs: map[string]chan struct{}{}, started: make(chan struct{})}
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(a))
	mux := http.NewServeMux()
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			Method string `json:"method"`
			Params struct {
				ID string `json:"id"`
			} `json:"params"`
		}
		body, _ := readAll(r)
		_ = json.Unmarshal(body, &call)
		if call.Method == "SubscribeToTask" {
			w = &firstWriter{ResponseWriter: w, ch: a.subscribed(call.Params.ID)}
		}
		rpc.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.url = srv.URL
	mux.Handle("/.well-known/agent-card.json", streamingCard("talker", srv.URL+"/rpc"))
	return a
}

func (a *talker) subscribed(id string) chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch, ok := a.subs[id]
	if !ok {
		ch = make(chan struct{})
		a.subs[id] = ch
	}
	return ch
}

func (a *talker) Execute(ctx context.Context, exec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if exec.StoredTask != nil {
			// The next message of a task that asked: its answer.
			var answer any
			for _, p := range exec.Message.Parts {
				if txt := p.Text(); txt != "" {
					answer = txt
				} else if d := p.Data(); d != nil {
					answer = d
				}
			}
			if yield(a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"color": answer})), nil) {
				yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil), nil)
			}
			return
		}
		var input map[string]any
		for _, p := range exec.Message.Parts {
			if d, ok := p.Data().(map[string]any); ok {
				input = d
			}
		}
		if !yield(a2a.NewSubmittedTask(exec, exec.Message), nil) {
			return
		}
		switch input["mode"] {
		case "stream":
			select {
			case <-a.subscribed(string(exec.TaskID)):
			case <-ctx.Done():
				return
			case <-time.After(30 * time.Second): // a caller that never follows fails the test
			}
			for _, ev := range []a2a.Event{
				a2a.NewStatusUpdateEvent(exec, a2a.TaskStateWorking, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("thinking"))),
				a2a.NewArtifactEvent(exec, a2a.NewTextPart("part one")),
				a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"n": 1})),
				a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"done": true})),
				a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil),
			} {
				if !yield(ev, nil) {
					return
				}
			}
		case "ask":
			yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateInputRequired,
				a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("which color?"))), nil)
		case "hang":
			if !yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateWorking, nil), nil) {
				return
			}
			// Its caller knows the task once it follows it: from then on a
			// caller that gives up can cancel it.
			select {
			case <-a.subscribed(string(exec.TaskID)):
				a.once.Do(func() { close(a.started) })
			case <-time.After(30 * time.Second):
			}
			<-ctx.Done()
		default:
			yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateFailed, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("no budget left"))), nil)
		}
	}
}

func (a *talker) Cancel(_ context.Context, exec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		a.mu.Lock()
		a.cancelled = append(a.cancelled, string(exec.TaskID))
		a.mu.Unlock()
		yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCanceled, nil), nil)
	}
}

func (a *talker) cancels() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.cancelled)
}

// firstWriter closes ch once the response is first written: a2a-go's
// server reads a subscribed task's events from then on.
type firstWriter struct {
	http.ResponseWriter
	ch   chan struct{}
	once sync.Once
}

func (w *firstWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.once.Do(func() { close(w.ch) })
	return n, err
}

func (w *firstWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// readAll reads a request's body and puts it back for the handler.
func readAll(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// chunkTexts are the text deltas of frames, in order: of chunks of
// delta_kind text, or, for the session tool, of tool deltas whose progress
// carries a text delta.
func chunkTexts(frames []*e2a.Response) []string {
	var out []string
	for _, f := range frames {
		if f.Kind != e2a.KindChunk {
			continue
		}
		switch f.Body["delta_kind"] {
		case e2a.DeltaText:
			s, _ := f.Body["delta"].(string)
			out = append(out, s)
		case e2a.DeltaTool:
			d, _ := f.Body["delta"].(map[string]any)
			data, _ := d["data"].(map[string]any)
			if d["kind"] == "progress" && data["delta_kind"] == e2a.DeltaText {
				s, _ := data["delta"].(string)
				out = append(out, s)
			}
		}
	}
	return out
}

func talkerServer(t *testing.T, dir string) (*testServer, *talker, string) {
	t.Helper()
	s := startServer(t, dir)
	a := newTalker(t)
	s.call("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "talker", "url": a.url, "protocol": "a2a"}).want(t, http.StatusCreated)
	_, key := s.account(map[string]any{"operations": []string{"*"}, "agents": []string{"talker"}}, nil)
	return s, a, key
}

// A remote A2A task's stream reaches every entry point as it happens, in
// order: agent.invoke's chunk frames (streaming), the session tool's
// events, an A2E workflow's frames and sluice's own A2A server's stream.
func TestA2AAgentStreamsThroughEveryEntryPoint(t *testing.T) {
	s, _, key := talkerServer(t, t.TempDir())
	want := []string{"thinking", "part one"}

	_, frames := postEnvelope(t, s, key, map[string]any{"request_id": "st-1", "method": "agent.invoke",
		"params": map[string]any{"agent": "talker", "input": map[string]any{"mode": "stream"}, "streaming": true}})
	last := frames[len(frames)-1]
	if got := chunkTexts(frames); strings.Join(got, "|") != strings.Join(want, "|") || last.Kind != e2a.KindComplete ||
		!strings.Contains(mustJSON(t, last.Body), `"done":true`) {
		t.Fatalf("agent.invoke streaming: texts %q, frames %s", got, mustJSON(t, frames))
	}
	_, quiet := postEnvelope(t, s, key, map[string]any{"request_id": "st-2", "method": "agent.invoke",
		"params": map[string]any{"agent": "talker", "input": map[string]any{"mode": "stream"}}})
	if len(quiet) != 1 {
		t.Fatalf("agent.invoke without streaming sent %d frames", len(quiet))
	}

	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "st-3", "method": "tool.call",
		"params": map[string]any{"tool_name": "agent.talker", "arguments": map[string]any{"mode": "stream"}, "streaming": true}})
	if got := chunkTexts(frames); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("session tool: texts %q, frames %s", got, mustJSON(t, frames))
	}

	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "st-4", "method": "workflow.execute",
		"params": map[string]any{"workflow": invokeDoc("talker", `{"mode":"stream"}`)}})
	if got := chunkTexts(frames); strings.Join(got, "|") != strings.Join(want, "|") ||
		!strings.Contains(mustJSON(t, frames[len(frames)-1].Body), `"status":"success"`) {
		t.Fatalf("A2E workflow frames: texts %q, frames %s", got, mustJSON(t, frames))
	}

	c := newA2ACaller(t, s, "talker", key, false)
	events, err := collect(t, c.tr.SendStreamingMessage(ctxT(t), c.params,
		&a2a.SendMessageRequest{Message: dataMessage("m-stream", map[string]any{"mode": "stream"})}))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	var artifacts int
	for _, ev := range events {
		switch e := ev.(type) {
		case *a2a.TaskStatusUpdateEvent:
			if e.Status.Message != nil && e.Status.State == a2a.TaskStateWorking {
				texts = append(texts, e.Status.Message.Parts[0].Text())
			}
		case *a2a.TaskArtifactUpdateEvent:
			artifacts++
		}
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") || artifacts < 3 {
		t.Fatalf("sluice's A2A stream: texts %q, %d artifact updates: %s", texts, artifacts, mustJSON(t, events))
	}
	if st := events[len(events)-1].(*a2a.TaskStatusUpdateEvent); st.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("the stream ends %s", st.Status.State)
	}
}

// A remote task that asks for input: agent.invoke ends with the question
// and how to answer, and the answer sent with remote_task_id continues the
// same task; an A2E workflow waits with the question and run.answer goes
// on; sluice's A2A server makes the task INPUT_REQUIRED and its next
// message answers; a failing task fails every call with its message.
func TestA2AAgentAsksForInput(t *testing.T) {
	s, _, key := talkerServer(t, t.TempDir())

	_, frames := postEnvelope(t, s, key, map[string]any{"request_id": "ask-1", "method": "agent.invoke",
		"params": map[string]any{"agent": "talker", "input": map[string]any{"mode": "ask"}}})
	last := frames[len(frames)-1]
	details, _ := last.Body["details"].(map[string]any)
	pending, _ := details["details"].(map[string]any)["inputRequired"].(map[string]any)
	if last.Kind != e2a.KindError || pending["remoteTaskId"] == nil || pending["contextId"] == nil ||
		pending["question"].(map[string]any)["text"] != "which color?" || !strings.Contains(mustJSON(t, details["suggestions"]), "remote_task_id") {
		t.Fatalf("agent.invoke asked: %s", mustJSON(t, last))
	}
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "ask-2", "method": "agent.invoke",
		"params": map[string]any{"agent": "talker", "input": map[string]any{"text": "blue"},
			"remote_task_id": pending["remoteTaskId"], "context_id": pending["contextId"]}})
	if last = frames[len(frames)-1]; last.Kind != e2a.KindComplete || mustJSON(t, last.Body["result"]) != `{"color":"blue"}` {
		t.Fatalf("agent.invoke answered: %s", mustJSON(t, frames))
	}
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "ask-tool", "method": "tool.call",
		"params": map[string]any{"tool_name": "agent.talker", "arguments": map[string]any{"mode": "ask"}}})
	tool, _ := frames[len(frames)-1].Body["result"].(map[string]any)
	toolPending, _ := tool["data"].(map[string]any)["inputRequired"].(map[string]any)
	if tool["success"] != false || tool["error_code"] != "input_required" || toolPending["remoteTaskId"] == nil ||
		!strings.Contains(tool["error"].(string), "remote_task_id") {
		t.Fatalf("the session tool asked: %s", mustJSON(t, frames[len(frames)-1]))
	}
	_, frames = postEnvelope(t, s, key, map[string]any{"request_id": "ask-3", "method": "agent.invoke",
		"params": map[string]any{"agent": "talker", "input": map[string]any{"mode": "fail"}}})
	if last = frames[len(frames)-1]; last.Kind != e2a.KindError || !strings.Contains(mustJSON(t, last.Body), "no budget left") {
		t.Fatalf("agent.invoke of a failing task: %s", mustJSON(t, last))
	}

	id := waitingWorkflow(t, s, key)
	r := s.call("POST", "/api/v1/runs/"+id+"/answer", key, map[string]any{"answer": "green"}).want(t, http.StatusOK)
	if r.str("status") != "success" || !strings.Contains(string(r.raw), `"color":"green"`) {
		t.Fatalf("run.answer: %s", r.raw)
	}

	c := newA2ACaller(t, s, "talker", key, false)
	task, err := c.send(dataMessage("m-ask", map[string]any{"mode": "ask"}), false)
	if err != nil || task.Status.State != a2a.TaskStateInputRequired || task.Status.Message == nil ||
		task.Status.Message.Parts[0].Text() != "which color?" {
		t.Fatalf("an A2A task whose agent asks: %v %s", err, mustJSON(t, task))
	}
	next := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("red"))
	next.ID, next.TaskID = "m-ask-2", task.ID
	done, err := c.send(next, false)
	if err != nil || done.Status.State != a2a.TaskStateCompleted || !strings.Contains(outputOf(t, done), `"color":"red"`) {
		t.Fatalf("the next message answered: %v %s", err, mustJSON(t, done))
	}
	if _, err := c.send(next, false); err == nil {
		t.Fatal("a message on a task that asks nothing was taken")
	}
}

// waitingWorkflow starts an A2E workflow whose agent asks for input and
// returns its run id once it waits with the question.
func waitingWorkflow(t *testing.T, s *testServer, key string) string {
	t.Helper()
	id := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{
		"workflow": invokeDoc("talker", `{"mode":"ask"}`), "async": true}).want(t, http.StatusAccepted).str("execution_id")
	var run response
	waitFor(t, 30*time.Second, "the workflow to wait for input", func() bool {
		run = s.call("GET", "/api/v1/runs/"+id, key, nil).want(t, http.StatusOK)
		return run.str("status") != "queued" && run.str("status") != "running"
	})
	if run.str("status") != "waiting" || !strings.Contains(string(run.raw), "which color?") || !strings.Contains(string(run.raw), "remoteTaskId") {
		t.Fatalf("the workflow: %s", run.raw)
	}
	return id
}

// A workflow that waits for a remote agent's answer outlives its gateway:
// answered on the next one, it continues the same remote task.
func TestA2AAgentAnswerAfterRestart(t *testing.T) {
	dir := t.TempDir()
	// The talker completes a task only on the next message of the task
	// that asked: a new task would fail.
	a, _, key := talkerServer(t, dir)
	id := waitingWorkflow(t, a, key)
	a.close()
	b := startServer(t, dir)
	r := b.call("POST", "/api/v1/runs/"+id+"/answer", key, map[string]any{"answer": "after restart"}).want(t, http.StatusOK)
	if r.str("status") != "success" || !strings.Contains(string(r.raw), `"color":"after restart"`) {
		t.Fatalf("answered after a restart: %s", r.raw)
	}
}

// Cancelling a run whose agent works, or whose agent's task waits for
// input, cancels the remote task.
func TestA2AAgentRunCancelPropagates(t *testing.T) {
	s, remote, key := talkerServer(t, t.TempDir())
	id := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{
		"workflow": invokeDoc("talker", `{"mode":"hang"}`), "async": true}).want(t, http.StatusAccepted).str("execution_id")
	select {
	case <-remote.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent was never called")
	}
	s.call("POST", "/api/v1/runs/"+id+"/cancel", key, nil).want(t, http.StatusOK)
	waitFor(t, 30*time.Second, "the remote task to be cancelled", func() bool { return remote.cancels() == 1 })

	// A run that waits on the agent's question: nothing runs, and its
	// cancel cancels the remote task that asked.
	waiting := waitingWorkflow(t, s, key)
	s.call("POST", "/api/v1/runs/"+waiting+"/cancel", key, nil).want(t, http.StatusOK)
	waitFor(t, 30*time.Second, "the waiting run's remote task to be cancelled", func() bool { return remote.cancels() == 2 })
}
