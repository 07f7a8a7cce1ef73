package gateway

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// CapabilityService runs A2S capabilities (internal/caprun); its methods
// are registered when it is set.
type CapabilityService interface {
	Run(ctx context.Context, p *account.Principal, req caprun.Request) (*capability.Result, error)
	Get(ctx context.Context, p *account.Principal, runID string) (*caprun.View, error)
	Cancel(ctx context.Context, p *account.Principal, runID string) (*caprun.View, error)
	Decide(ctx context.Context, p *account.Principal, runID string, answer json.RawMessage) (*capability.Result, error)
}

// capabilityRun: {id: "NS/ID", version, inputs, credentials, timeout}.
func (s *Server) capabilityRun(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	req := caprun.Request{Ref: a.String("id"), Version: a.String("version"), Inputs: a.Object("inputs"), SessionID: c.Env.SessionID,
		ClientID: a.String("client_id")}
	if sid := a.String("session_id"); sid != "" {
		req.SessionID = sid
	}
	creds := a.Object("credentials")
	if t := a.Seconds("timeout"); t > 0 {
		req.MaxTime = time.Duration(t * float64(time.Second))
	}
	var err error
	if req.Credentials, err = credentialMap(creds); err != nil {
		return err
	}
	r, err := s.svc.Capabilities.Run(ctx, c.Principal, req)
	if err != nil {
		return err
	}
	return w.Complete(r)
}

// credentialMap checks {host: {field: "vault id"}}.
func credentialMap(v map[string]any) (map[string]map[string]string, error) {
	if len(v) == 0 {
		return nil, nil
	}
	out := make(map[string]map[string]string, len(v))
	for host, fields := range v {
		m, ok := fields.(map[string]any)
		if !ok {
			return nil, fault.New(fault.Invalid, "params.credentials.%s must be an object of field: vault credential id", host).
				WithDetail("path", "params.credentials."+host)
		}
		out[host] = map[string]string{}
		for field, id := range m {
			sid, ok := id.(string)
			if !ok || sid == "" {
				return nil, fault.New(fault.Invalid, "params.credentials.%s.%s must be a vault credential id (a string)", host, field).
					WithDetail("path", "params.credentials."+host+"."+field)
			}
			out[host][field] = sid
		}
	}
	return out, nil
}

func (s *Server) capabilityGet(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	v, err := s.svc.Capabilities.Get(ctx, c.Principal, a.String("id"))
	if err != nil {
		return err
	}
	return w.Complete(v)
}

func (s *Server) capabilityCancel(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	v, err := s.svc.Capabilities.Cancel(ctx, c.Principal, a.String("id"))
	if err != nil {
		return err
	}
	return w.Complete(v)
}

// capabilityDecide: {id: run id, answer}.
func (s *Server) capabilityDecide(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("id")
	raw, err := json.Marshal(a.Any("answer"))
	if err != nil {
		return fault.New(fault.Invalid, "params.answer is not JSON").WithDetail("path", "params.answer")
	}
	r, err := s.svc.Capabilities.Decide(ctx, c.Principal, id, raw)
	if err != nil {
		return err
	}
	return w.Complete(r)
}
