package gateway

import (
	"context"

	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// E2AConn is an E2A connection inside the process: its calls take the
// dispatcher's path as /api/v1/e2a's do (admit, the account's grants, its
// rate limit, audit), with the key checked once at OpenE2A and again every
// connRecheck (ConnAuth). It is how an ingress that runs in the CLI's
// process (`sluice acp --data`) reaches an embedded sluice, where the relay
// (`sluice acp --url`) posts the same envelopes to /api/v1/e2a.
type E2AConn struct {
	d         *Dispatcher
	auth      *ConnAuth
	transport string
}

// OpenE2A authenticates key once for a connection of transport (the metrics'
// and audit's name of the ingress, e.g. "acp"). A refused key is a
// *fault.Error of kind Unauthenticated.
func (s *Server) OpenE2A(ctx context.Context, key, transport string) (*E2AConn, error) {
	auth, err := s.dispatcher.OpenConn(ctx, key, ids.New(ids.Request), transport+".connect")
	if err != nil {
		return nil, err
	}
	return &E2AConn{d: s.dispatcher, auth: auth, transport: transport}, nil
}

// Call dispatches env and writes its frames to sink, ending with exactly
// one final frame. env's identity is replaced by the connection's account;
// a missing request id is made.
func (c *E2AConn) Call(ctx context.Context, env *e2a.Envelope, sink e2a.FrameSink) error {
	if env.RequestID == "" {
		env.RequestID = ids.New(ids.Request)
	}
	if env.Params == nil {
		env.Params = map[string]any{}
	}
	c.d.Dispatch(ctx, &Call{Env: env, conn: c.auth, Transport: c.transport}, sink)
	return nil
}
