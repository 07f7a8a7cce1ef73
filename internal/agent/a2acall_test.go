package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// a2aAgent is a real A2A agent built with a2a-go's server: its card at the
// well-known path, JSON-RPC at /rpc. act decides each task from the data
// part it is sent; it records the requests' Authorization headers, the
// message ids it saw and the tasks cancelled.
type a2aAgent struct {
	srv       *httptest.Server
	mu        sync.Mutex
	methods   []string
	auth      []string
	messages  []string
	cancelled []string
	act       func(ctx context.Context, exec *a2asrv.ExecutorContext, input map[string]any, yield func(a2a.Event, error) bool)
	streaming bool
	cardURL   string // the interface URL its card names ("": its own /rpc)
	subs      map[string]chan struct{}
}

// subscribed is closed once a subscription to task id has begun to answer:
// the server reads the task's events for it from then on, so an agent that
// waits for it before it goes on streams every update to its caller.
func (a *a2aAgent) subscribed(id string) chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.subs == nil {
		a.subs = map[string]chan struct{}{}
	}
	ch, ok := a.subs[id]
	if !ok {
		ch = make(chan struct{})
		a.subs[id] = ch
	}
	return ch
}

// firstWrite closes once when the response is first written.
type firstWrite struct {
	http.ResponseWriter
	once *sync.Once
	ch   chan struct{}
}

func (w firstWrite) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.once.Do(func() { close(w.ch) })
	return n, err
}

func (w firstWrite) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func newA2AAgent(t *testing.T, streaming bool, act func(ctx context.Context, exec *a2asrv.ExecutorContext, input map[string]any, yield func(a2a.Event, error) bool)) *a2aAgent {
	t.Helper()
	a := &a2aAgent{act: act, streaming: streaming}
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(a))
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		u := a.cardURL
		if u == "" {
			u = a.srv.URL + "/rpc"
		}
		card := &a2a.AgentCard{Name: "planner", Description: "plans", Version: "1.0.0",
			SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(u, a2a.TransportProtocolJSONRPC)},
			Capabilities:        a2a.AgentCapabilities{Streaming: a.streaming},
			DefaultInputModes:   []string{"application/json"}, DefaultOutputModes: []string{"application/json"}}
		a2asrv.NewStaticAgentCardHandler(card).ServeHTTP(w, r)
	})
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call struct {
			Method string `json:"method"`
			Params struct {
				ID string `json:"id"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &call)
		a.mu.Lock()
		a.auth = append(a.auth, r.Header.Get("Authorization"))
		a.methods = append(a.methods, call.Method)
		a.mu.Unlock()
		if call.Method == "SubscribeToTask" {
			w = firstWrite{ResponseWriter: w, once: &sync.Once{}, ch: a.subscribed(call.Params.ID)}
		}
		rpc.ServeHTTP(w, r)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *a2aAgent) Execute(ctx context.Context, exec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		a.mu.Lock()
		a.messages = append(a.messages, exec.Message.ID)
		a.mu.Unlock()
		var input map[string]any
		for _, p := range exec.Message.Parts {
			if d, ok := p.Data().(map[string]any); ok {
				input = d
			}
		}
		if exec.StoredTask == nil && !yield(a2a.NewSubmittedTask(exec, exec.Message), nil) {
			return
		}
		a.act(ctx, exec, input, yield)
	}
}

func (a *a2aAgent) Cancel(_ context.Context, exec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		a.mu.Lock()
		a.cancelled = append(a.cancelled, string(exec.TaskID))
		a.mu.Unlock()
		yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCanceled, nil), nil)
	}
}

// called reports whether a request of method came.
func (a *a2aAgent) called(method string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Contains(a.methods, method)
}

// count is how many requests of method came.
func (a *a2aAgent) count(method string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, m := range a.methods {
		if m == method {
			n++
		}
	}
	return n
}

func (a *a2aAgent) seen() (auth, messages, cancelled []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.auth...), append([]string(nil), a.messages...), append([]string(nil), a.cancelled...)
}

// echoAct completes with the input as a data artifact.
func echoAct(_ context.Context, exec *a2asrv.ExecutorContext, input map[string]any, yield func(a2a.Event, error) bool) {
	if !yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateWorking, nil), nil) {
		return
	}
	if !yield(a2a.NewArtifactEvent(exec, a2a.NewDataPart(map[string]any{"echo": input})), nil) {
		return
	}
	yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateCompleted, nil), nil)
}

func statusAct(state a2a.TaskState, text string) func(context.Context, *a2asrv.ExecutorContext, map[string]any, func(a2a.Event, error) bool) {
	return func(_ context.Context, exec *a2asrv.ExecutorContext, _ map[string]any, yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(exec, state, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))), nil)
	}
}

func (e *env) registerA2A(t *testing.T, name string, a *a2aAgent, change func(*agenthttp.Entry)) {
	t.Helper()
	e.register(t, name, a.srv.URL, func(en *agenthttp.Entry) {
		en.Protocol = agenthttp.ProtocolA2A
		if change != nil {
			change(en)
		}
	})
}

// An A2A agent behind the registry answers a task: its input goes as a
// data part under the task id as message id, its artifact comes back as
// the output, through both a blocking call and a stream.
func TestA2AAgentAnswers(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := map[bool]string{false: "blocking", true: "streaming"}[streaming]
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			a := newA2AAgent(t, streaming, echoAct)
			e.registerA2A(t, "planner", a, nil)
			out, err := e.inv.Invoke(ctx, "planner", "task-1", json.RawMessage(`{"goal":"ship"}`), "corr-1")
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != `{"echo":{"goal":"ship"}}` {
				t.Fatalf("output %s", out)
			}
			if _, msgs, _ := a.seen(); len(msgs) != 1 || msgs[0] != "task-1" {
				t.Fatalf("message ids %v: want the task id once", msgs)
			}
		})
	}
}

// The agent's failure, rejection or question is the call's failure, named
// for what it is, with the agent's message, and not retried.
func TestA2AAgentFailures(t *testing.T) {
	for _, c := range []struct {
		state a2a.TaskState
		want  string
	}{
		{a2a.TaskStateFailed, "ended its task failed: no budget left"},
		{a2a.TaskStateRejected, "ended its task rejected: no budget left"},
		{a2a.TaskStateInputRequired, "asks for input before it goes on: no budget left"},
	} {
		t.Run(string(c.state), func(t *testing.T) {
			e := newEnv(t)
			a := newA2AAgent(t, false, statusAct(c.state, "no budget left"))
			e.registerA2A(t, "planner", a, nil)
			_, err := e.inv.Invoke(ctx, "planner", "task-2", json.RawMessage(`{}`), "")
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.Upstream || !strings.Contains(fe.Message, c.want) || fe.Details["state"] != string(c.state) {
				t.Fatalf("error %v", err)
			}
			if _, msgs, _ := a.seen(); len(msgs) != 1 {
				t.Fatalf("%d messages: an agent's answer is not retried", len(msgs))
			}
		})
	}
}

// The registry's credential reaches the agent's host as the Authorization
// header and appears nowhere in the answer; a card naming another host
// for its interface is refused before any credential is sent there.
func TestA2AAgentCredentials(t *testing.T) {
	e := newEnv(t)
	a := newA2AAgent(t, false, echoAct)
	host := strings.TrimPrefix(a.srv.URL, "http://")
	if _, err := e.vault.Put(ctx, vault.Entry{ID: "planner-token", Type: "bearer-token", Hosts: []string{strings.Split(host, ":")[0]},
		Value: vault.NewPlaintext("tok-a2a-secret-0042")}); err != nil {
		t.Fatal(err)
	}
	e.registerA2A(t, "planner", a, func(en *agenthttp.Entry) {
		en.Auth = &agenthttp.AuthConfig{Type: agenthttp.AuthBearer, Token: agenthttp.SecretRef("planner-token")}
	})
	out, err := e.inv.Invoke(ctx, "planner", "task-3", json.RawMessage(`{"q":1}`), "")
	if err != nil || strings.Contains(string(out), "tok-a2a") {
		t.Fatalf("output %s, %v", out, err)
	}
	if auth, _, _ := a.seen(); len(auth) == 0 || auth[0] != "Bearer tok-a2a-secret-0042" {
		t.Fatalf("Authorization headers at the agent: %q", auth)
	}

	other := newA2AAgent(t, false, echoAct)
	moved := newA2AAgent(t, false, echoAct)
	moved.cardURL = strings.Replace(other.srv.URL, "127.0.0.1", "localhost", 1) + "/rpc"
	e.registerA2A(t, "moved", moved, nil)
	_, err = e.inv.Invoke(ctx, "moved", "task-4", json.RawMessage(`{}`), "")
	if fault.KindOf(err) != fault.PermissionDenied || !strings.Contains(err.Error(), "not on the registered host") {
		t.Fatalf("a card naming another host: %v", err)
	}
	if auth, msgs, _ := other.seen(); len(auth)+len(msgs) != 0 {
		t.Fatalf("the other host was called: %v %v", auth, msgs)
	}
}

// A caller that gives up cancels the remote task it started, whether it
// follows the task on a stream or reads it.
func TestA2AAgentCancelPropagates(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "reading", true: "streaming"}[streaming], func(t *testing.T) { cancelPropagates(t, streaming) })
	}
}

func cancelPropagates(t *testing.T, streaming bool) {
	e := newEnv(t)
	a := newA2AAgent(t, streaming, func(ctx context.Context, exec *a2asrv.ExecutorContext, _ map[string]any, yield func(a2a.Event, error) bool) {
		if !yield(a2a.NewStatusUpdateEvent(exec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		<-ctx.Done()
	})
	e.registerA2A(t, "planner", a, nil)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := e.inv.Invoke(cctx, "planner", "task-5", json.RawMessage(`{}`), "")
		done <- err
	}()
	// The caller has the remote task's id once it follows the task.
	follow := map[bool]string{false: "GetTask", true: "SubscribeToTask"}[streaming]
	deadline := time.Now().Add(30 * time.Second)
	for !a.called(follow) {
		if time.Now().After(deadline) {
			t.Fatalf("the caller never called %s", follow)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call answered")
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		if _, _, cancelled := a.seen(); len(cancelled) == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the remote task was not cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
