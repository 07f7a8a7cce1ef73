package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The wire taps tell progressRoutes which progress notifications have
// arrived, before the SDK queues them (see progressRoutes).

// tapTransport taps the connections of a stdio transport. (A streamable
// HTTP connection is tapped at its response bodies instead, by sseTap: the
// SDK depends on the concrete type of its connection.)
type tapTransport struct {
	sdk.Transport
	progress *progressRoutes
	tasks    *taskTools
}

func (t tapTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return tapConn{Connection: c, progress: t.progress, tasks: t.tasks}, nil
}

type tapConn struct {
	sdk.Connection
	progress *progressRoutes
	tasks    *taskTools
}

func (c tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if resp, ok := m.(*jsonrpc.Response); ok && err == nil {
		c.tasks.sawResult(resp.Result)
	}
	if req, ok := m.(*jsonrpc.Request); ok && err == nil && req.Method == progressMethod {
		var p struct {
			Token any `json:"progressToken"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			c.progress.arrived(tokenString(p.Token))
		}
	}
	return m, err
}

func (c tapConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if req, ok := m.(*jsonrpc.Request); ok && req.Method == "initialize" {
		cp := *req
		cp.Params = withoutRootsParams(req.Params)
		m = &cp
	}
	return c.Connection.Write(ctx, m)
}

// maxTappedEvent bounds the bytes of one server-sent event the tap keeps;
// a longer event is passed on untouched and not looked at (a progress
// notification is far smaller).
const maxTappedEvent = 64 << 10

// sseTap passes a text/event-stream body through unchanged, handing the
// data of each event (one JSON-RPC message) to seen.
type sseTap struct {
	body io.ReadCloser
	seen func([]byte)

	line    []byte // the unfinished line
	data    []byte // the event's data lines so far
	tooLong bool   // the event went over maxTappedEvent: skip to its end
}

func (t *sseTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	t.scan(p[:n])
	return n, err
}

func (t *sseTap) Close() error { return t.body.Close() }

func (t *sseTap) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.keep(b)
			return
		}
		t.keep(b[:i])
		t.endLine()
		b = b[i+1:]
	}
}

func (t *sseTap) keep(b []byte) {
	if len(t.line)+len(t.data)+len(b) > maxTappedEvent {
		t.tooLong, t.line = true, t.line[:0]
		return
	}
	if !t.tooLong {
		t.line = append(t.line, b...)
	}
}

func (t *sseTap) endLine() {
	line := bytes.TrimSuffix(t.line, []byte("\r"))
	t.line = t.line[:0]
	switch {
	case len(line) == 0: // the event ends
		if !t.tooLong && len(t.data) > 0 {
			t.seen(t.data)
		}
		t.data, t.tooLong = t.data[:0], false
	case t.tooLong:
	case bytes.HasPrefix(line, []byte("data:")):
		v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
		if len(t.data) > 0 {
			t.data = append(t.data, '\n')
		}
		t.data = append(t.data, v...)
	}
}

// maxTappedBody bounds the bytes of a JSON answer the tap keeps to look at.
const maxTappedBody = 4 << 20

// jsonTap passes an application/json body through unchanged and hands it,
// whole, to seen at its end (when it is within maxTappedBody).
type jsonTap struct {
	body io.ReadCloser
	seen func([]byte)
	buf  []byte
	over bool
	done bool
}

func (t *jsonTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if !t.over {
		if len(t.buf)+n > maxTappedBody {
			t.over, t.buf = true, nil
		} else {
			t.buf = append(t.buf, p[:n]...)
		}
	}
	if err == io.EOF && !t.over && !t.done {
		t.done = true
		t.seen(t.buf)
		t.buf = nil
	}
	return n, err
}

func (t *jsonTap) Close() error { return t.body.Close() }
