package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// mcpRequest is one gateway call an MCP request asks for (tools/list is
// tool.list, tools/call is tool.call): its method and params, and where its
// progress goes (nil: nowhere).
type mcpRequest struct {
	method   string
	params   map[string]any
	progress func(f *e2a.Response)
	out      *mcpEncoder // where the final frame is kept
}

// mcpCodec is the MCP ingress of one MCP session (Streamable HTTP or
// stdio): a call carries the session's authentication, not a key, as an A2E
// session's calls do; its chunks go out as the request's progress and its
// final frame is kept for the MCP handler to render.
type mcpCodec struct{ s *mcpSession }

func (mc mcpCodec) Decode(r mcpRequest) (*Call, error) {
	env := e2a.NewEnvelope()
	env.RequestID, env.Method, env.Params = ids.New(ids.Request), r.method, r.params
	env.SessionID, env.Channel, env.Timestamp = mc.s.id, "mcp", e2a.Time(mc.s.srv.clock.Now())
	return &Call{Env: env, conn: mc.s.auth, Transport: "mcp"}, nil
}

func (mc mcpCodec) Encoder(r mcpRequest, _ *Call) Encoder { return r.out }

// mcpEncoder keeps a call's final frame and passes its chunks on as
// progress.
type mcpEncoder struct {
	progress func(f *e2a.Response)
	mu       sync.Mutex
	final    *e2a.Response
}

func (e *mcpEncoder) WriteFrame(f *e2a.Response) error {
	if f.IsFinal {
		e.mu.Lock()
		e.final = f
		e.mu.Unlock()
		return nil
	}
	if e.progress != nil {
		e.progress(f)
	}
	return nil
}

// Close has nothing to do: the handler renders the final frame.
func (e *mcpEncoder) Close() {}

// dispatch runs one call of the session through the dispatcher and returns
// its final frame (the dispatcher always writes one).
func (s *mcpSession) dispatch(ctx context.Context, method string, params map[string]any, progress func(*e2a.Response)) *e2a.Response {
	r := mcpRequest{method: method, params: params, out: &mcpEncoder{progress: progress}}
	serve(ctx, s.srv.dispatcher, mcpCodec{s}, r)
	r.out.mu.Lock()
	defer r.out.mu.Unlock()
	if r.out.final == nil { // not reached: Dispatch always writes one
		return e2a.ErrorFrame("internal", "the call ended without an answer", nil)
	}
	return r.out.final
}

// progressNotifier sends a call's chunks as notifications/progress under
// token: each chunk is one step of progress, its message the chunk's delta.
func progressNotifier(ctx context.Context, ss *mcp.ServerSession, token any) func(*e2a.Response) {
	if token == nil || ss == nil {
		return nil
	}
	var mu sync.Mutex
	n := 0
	return func(f *e2a.Response) {
		mu.Lock()
		defer mu.Unlock()
		n++
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n),
			Message: progressMessage(f)})
	}
}

// maxProgressMessage bounds a progress message: it is for a person watching.
const maxProgressMessage = 500

// progressMessage is a chunk's delta as a line: its kind and data.
func progressMessage(f *e2a.Response) string {
	delta, _ := f.Body["delta"].(map[string]any)
	if delta == nil {
		return ""
	}
	kind, _ := delta["kind"].(string)
	b, err := json.Marshal(delta["data"])
	if err != nil {
		return kind
	}
	msg := strings.TrimSpace(fmt.Sprintf("%s %s", kind, b))
	if len(msg) > maxProgressMessage {
		msg = msg[:maxProgressMessage] + "…"
	}
	return msg
}
