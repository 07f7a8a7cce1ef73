package gateway

import (
	"context"
	"net/http"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// Codec is one ingress protocol: it decodes its wire's request into a Call
// and renders the call's frames, its errors among them, back onto its wire.
// It decides nothing: who calls, whether they may, how often, and what is
// audited are the dispatcher's (Dispatch: authenticate, admit, the method),
// and how an error code looks on a wire is fault's table (fault.RowOf). A
// new ingress (MCP, A2A, ACP) is one Codec and the route or listener that
// feeds it to serve.
type Codec[In any] interface {
	// Decode reads one request. A problem with it is returned beside a Call
	// that still holds what could be read (its request id, its key): the
	// dispatcher reports it after authentication, so a caller without a
	// valid key learns nothing about what it sent.
	Decode(in In) (*Call, error)
	// Encoder is where the dispatcher writes c's frames.
	Encoder(in In, c *Call) Encoder
}

// Encoder renders one call's frames on its codec's wire.
type Encoder interface {
	e2a.FrameSink
	// Close ends the answer once the dispatcher has written the final
	// frame: a codec that answers with the final frame alone (REST) writes
	// it here, a streaming one lets go of what it holds.
	Close()
}

// serve runs one request of codec's wire through the dispatcher: decode,
// dispatch, close the answer.
func serve[In any](ctx context.Context, d *Dispatcher, codec Codec[In], in In) {
	c, err := codec.Decode(in)
	enc := codec.Encoder(in, c)
	c.decodeErr = err
	d.Dispatch(ctx, c, enc)
	enc.Close()
}

// exchange is one HTTP request, the writer of its answer, and the request id
// it is answered under (X-Request-ID).
type exchange struct {
	w  http.ResponseWriter
	r  *http.Request
	id string
}

// serveHTTP serves codec's requests over HTTP.
func serveHTTP(d *Dispatcher, codec Codec[exchange]) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := requestID(r)
		w.Header().Set("X-Request-ID", id)
		serve(r.Context(), d, codec, exchange{w: w, r: r, id: id})
	}
}
