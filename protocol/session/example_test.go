package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/sluicehq/sluice/protocol/session"
)

// Decode a line, answer it: the server's side of one call.
func Example() {
	reg := session.NewRegistry()
	line := `{"a2e":"1.0","type":"tool/call/req","id":"00000000000000000000000000000004","ts":1763900000.3,"tool_name":"op.FilterData","arguments":{"inputPath":"/input/tickets"}}`
	m, err := reg.Decode([]byte(line), session.Limits{})
	if err != nil {
		panic(err)
	}
	req := m.(*session.ToolCallReq)
	fmt.Println(req.ToolName, string(req.Arguments))

	// A Writer stamps what the message leaves empty (here with a fixed
	// clock and id) and writes one line.
	st := session.Stamper{
		Now:   func() time.Time { return time.Unix(1763900001, 0) },
		NewID: func() string { return "0a85c1dd3f0f4da297eb5a241be696e6" },
	}
	w := session.NewWriter(os.Stdout, st, session.Limits{})
	_ = w.Write(&session.ToolCallResp{Ref: session.Ref{ReqID: req.ID},
		Data: session.ToolResult{Success: true, ToolName: req.ToolName, Data: json.RawMessage(`[{"id":1}]`)}})
	// Output:
	// op.FilterData {"inputPath":"/input/tickets"}
	// {"a2e":"1.0","type":"tool/call/resp","id":"0a85c1dd3f0f4da297eb5a241be696e6","ts":1763900001,"req_id":"00000000000000000000000000000004","data":{"success":true,"tool_name":"op.FilterData","data":[{"id":1}],"duration_ms":0}}
}

// A line the codec cannot take is an *Error; Reply is the `error` message
// that answers it, and the session goes on. A field the type does not define
// is skipped, not refused (DecodeNoting reports it), so a misspelt tool_name
// is a missing one.
func ExampleRegistry_Decode_error() {
	reg := session.NewRegistry()
	line := `{"a2e":"1.0","type":"tool/call/req","id":"00000000000000000000000000000004","ts":1,"toolname":"op.Wait"}`
	_, err := reg.DecodeNoting([]byte(line), session.Limits{}, func(f session.IgnoredField) {
		fmt.Println("skipped", f.Path, f.Suggestions)
	})
	var e *session.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Path)
		fmt.Println(e)
		st := session.Stamper{
			Now:   func() time.Time { return time.Unix(1763900001, 0) },
			NewID: func() string { return "c4f048536c3b4aadbb87ec72c2dcd273" },
		}
		_ = session.NewWriter(os.Stdout, st, session.Limits{}).Write(e.Reply())
	}
	// Output:
	// skipped toolname [did you mean "tool_name"?]
	// schema_violation tool_name
	// session: tool/call/req: tool_name: is required
	// {"a2e":"1.0","type":"error","id":"c4f048536c3b4aadbb87ec72c2dcd273","ts":1763900001,"req_id":"00000000000000000000000000000004","code":"schema_violation","message":"tool/call/req: tool_name: is required","detail":{"path":"tool_name"},"retryable":false}
}

// A Reader skips blank lines, drops "\r", and goes on after a line it cannot
// take.
func ExampleReader() {
	stream := strings.Join([]string{
		`{"a2e":"1.0","type":"ping","id":"00000000000000000000000000000001","ts":1}`,
		``,
		`not json`,
		`{"a2e":"1.0","type":"chain/event","id":"00000000000000000000000000000002","ts":1}` + "\r",
		`{"a2e":"1.0","type":"ping","id":"00000000000000000000000000000003","ts":1,"pad":"` + strings.Repeat("x", 200) + `"}`,
		`{"a2e":"1.0","type":"ping","id":"00000000000000000000000000000004","ts":1}`,
	}, "\n")
	rd := session.NewReader(strings.NewReader(stream), session.NewRegistry(), session.Limits{MaxLineBytes: 200})
	for {
		m, err := rd.Next()
		var e *session.Error
		switch {
		case errors.As(err, &e):
			fmt.Printf("line %d: %s\n", rd.Line(), e.Code)
			continue
		case err != nil: // io.EOF
			return
		}
		fmt.Printf("line %d: %T %s\n", rd.Line(), m, m.Head().Type)
	}
	// Output:
	// line 1: *session.Ping ping
	// line 3: parse_error
	// line 4: *session.Generic chain/event
	// line 5: invalid_message
	// line 6: *session.Ping ping
}

// A plugin adds a namespace of its own types.
func ExampleRegistry_Register() {
	reg := session.NewRegistry()
	if err := reg.Register(session.MCP); err != nil {
		panic(err)
	}
	fmt.Println(reg.Namespaces())
	fmt.Println(reg.Register(session.MCP))
	m, _ := reg.Decode([]byte(`{"a2e":"1.0","type":"mcp/server/unregister/req","id":"00000000000000000000000000000001","ts":1,"name":"github"}`), session.Limits{})
	fmt.Printf("%T %s\n", m, m.(*session.MCPUnregisterReq).Name)
	// Output:
	// [tool mcp]
	// session: namespace "mcp" is taken or not a name
	// *session.MCPUnregisterReq github
}

// Events of each request are numbered from 0.
func ExampleSequencer() {
	var seq session.Sequencer
	fmt.Println(seq.Next("a"), seq.Next("a"), seq.Next("b"), seq.Next("a"))
	seq.Forget("a")
	fmt.Println(seq.Next("a"), seq.Len())
	// Output:
	// 0 1 0 2
	// 0 2
}

// The agent's side: connect, list, call a tool with events, shut down. The
// server here is a few lines over net.Pipe; in use it is a TCP or WebSocket
// connection to sluice, or `sluice session --stdio`'s pipes.
func ExampleConnect() {
	agent, server := net.Pipe()
	go fakeServer(server)

	ctx := context.Background()
	c, err := session.Connect(ctx, agent, agent, session.ClientOptions{
		AgentID: "example", AuthToken: "slk_...", Caps: []string{"tools"},
		OnEvent: func(m session.Message) {
			if e, ok := m.(*session.ToolEvent); ok {
				fmt.Println("event", e.Seq, e.Kind, string(e.Data))
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("session", c.Handshake().SessionID, "max_parallel", c.Handshake().MaxParallel)

	list, _ := c.ListTools(ctx, &session.ToolListReq{})
	fmt.Println("tools", list.Tools[0].Name)

	resp, err := c.CallTool(ctx, &session.ToolCallReq{ToolName: "op.Wait", Streaming: true, Arguments: json.RawMessage(`{"duration":1}`)})
	if err == nil {
		fmt.Println("result", resp.Data.Success, string(resp.Data.Data))
	}

	_, err = c.CallTool(ctx, &session.ToolCallReq{ToolName: "op.ApiCall"})
	var refused *session.ErrorMessage
	if errors.As(err, &refused) {
		fmt.Println("refused", refused.Code)
	}

	fmt.Println("shutdown", c.Shutdown(ctx, 5))
	// Output:
	// session sess-1 max_parallel 4
	// tools op.Wait
	// event 0 progress {"pct":50}
	// event 1 progress {"pct":100}
	// result true {"waited":1}
	// refused tool_denied
	// shutdown <nil>
}

// fakeServer answers ExampleConnect's requests in order.
func fakeServer(conn net.Conn) {
	defer conn.Close()
	rd := session.NewReader(conn, session.NewRegistry(), session.Limits{})
	w := session.NewWriter(conn, session.Stamper{}, session.Limits{})
	var seq session.Sequencer
	for {
		m, err := rd.Next()
		if err != nil {
			return
		}
		ref := session.Ref{ReqID: m.Head().ID}
		switch m := m.(type) {
		case *session.HandshakeReq:
			_ = w.Write(&session.HandshakeResp{Ref: ref, OK: true, SessionID: "sess-1", MaxParallel: 4,
				AcceptedCaps: []session.CapabilityAck{{Capability: "tools", Enabled: true}}})
		case *session.ToolListReq:
			_ = w.Write(&session.ToolListResp{Ref: ref, Tools: []session.ToolInfo{{Name: "op.Wait"}}})
		case *session.ToolCallReq:
			if m.ToolName != "op.Wait" {
				_ = w.Write(&session.ErrorMessage{ReqID: m.ID, Code: session.CodeToolDenied, Message: "not permitted"})
				continue
			}
			for _, pct := range []string{"50", "100"} {
				_ = w.Write(&session.ToolEvent{EventFields: session.EventFields{Ref: ref, Kind: session.KindProgress,
					Data: json.RawMessage(`{"pct":` + pct + `}`), Seq: seq.Next(m.ID)}})
			}
			seq.Forget(m.ID)
			_ = w.Write(&session.ToolCallResp{Ref: ref, Data: session.ToolResult{Success: true, ToolName: m.ToolName,
				Data: json.RawMessage(`{"waited":1}`)}})
		case *session.Shutdown:
			_ = w.Write(&session.Shutdown{ReqID: m.ID})
			return
		}
	}
}
