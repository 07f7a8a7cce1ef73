package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// sseHandler serves GET /api/v1/executions/{id}/events: the execution's E2A
// frames as Server-Sent Events, stored ones first and then live ones, each
// with its sequence as the event id so a client reconnects with
// Last-Event-ID. Errors before the stream starts are ordinary JSON answers.
func (s *Server) sseHandler(rt route) http.HandlerFunc {
	return serveHTTP(s.dispatcher, sseCodec{restCodec{s: s, rt: rt}})
}

// sseCodec is the SSE ingress: a REST request (Last-Event-ID is the after
// parameter) answered by a stream of events.
type sseCodec struct{ rest restCodec }

func (sc sseCodec) Decode(x exchange) (*Call, error) {
	c, err := sc.rest.Decode(x)
	if lei := x.r.Header.Get("Last-Event-ID"); lei != "" && err == nil {
		if _, given := c.Env.Params["after"]; !given {
			c.Env.Params["after"] = lei
		}
	}
	return c, err
}

func (sc sseCodec) Encoder(x exchange, c *Call) Encoder {
	sink := &sseSink{w: x.w, c: c, rt: sc.rest.rt, clock: sc.rest.s.clock}
	sink.stop = sink.heartbeat(sc.rest.s.cfg.SSEHeartbeat)
	return sink
}

// sseSink writes the events call's frames as SSE: each chunk's delta (an
// execution frame) as an event "frame", the final frame as "end" or "error".
type sseSink struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	c       *Call
	rt      route
	clock   interface{ Now() time.Time }
	stop    func() // the heartbeat's
	started bool
	final   *e2a.Response
	last    time.Time
}

func (s *sseSink) WriteFrame(f *e2a.Response) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.IsFinal {
		s.final = f
		if !s.started {
			return nil // rendered as a JSON answer
		}
		event := "end"
		data := f.Body["result"]
		if f.Kind == e2a.KindError {
			event, data = "error", f.Body
		}
		return s.event("", event, data)
	}
	if !s.started {
		s.start()
	}
	seq, _ := f.Body["seq"].(int64)
	return s.event(strconv.FormatInt(seq, 10), "frame", f.Body["delta"])
}

func (s *sseSink) start() {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	if l := s.c.Limit; l != nil {
		setLimitHeaders(h, l)
	}
	// A stream outlives the server's write timeout: lift it for this response.
	_ = http.NewResponseController(s.w).SetWriteDeadline(time.Time{})
	s.w.WriteHeader(http.StatusOK)
	s.started = true
}

// Close stops the heartbeat; a call that ended before its stream started
// (refused, or not found) is answered as REST answers it.
func (s *sseSink) Close() {
	s.stop()
	if !s.started {
		writeFinal(s.w, s.rt, s.c, s.final)
	}
}

// event writes one SSE event and flushes it.
func (s *sseSink) event(id, event string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if id != "" {
		if _, err := fmt.Fprintf(s.w, "id: %s\n", id); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, b); err != nil {
		return err
	}
	s.last = s.clock.Now()
	return http.NewResponseController(s.w).Flush()
}

// heartbeat writes a comment on a started stream that has been quiet for
// every, so proxies and clients see the connection alive.
func (s *sseSink) heartbeat(every time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				s.mu.Lock()
				if s.started && s.final == nil && s.clock.Now().Sub(s.last) >= every {
					_, _ = fmt.Fprint(s.w, ": keepalive\n\n")
					_ = http.NewResponseController(s.w).Flush()
					s.last = s.clock.Now()
				}
				s.mu.Unlock()
			}
		}
	}()
	return func() { close(done) }
}
