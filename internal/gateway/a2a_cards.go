package gateway

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/a2aserver"
	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/fault"
)

// The A2A cards. Public cards need no key and hold what the registry lets
// anyone know: an agent's name and sluice's endpoint for it, never the
// agent's own URL or credentials. The extended card (GetExtendedAgentCard,
// with a key) is the caller's view: the server's lists only the agents the
// account may call.

// baseURL is sluice's URL as the caller reached it: the cards name
// sluice's endpoints, never an internal address.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// serverCard is GET /.well-known/agent-card.json: every registered agent as
// a skill.
func (s *Server) serverCard(w http.ResponseWriter, r *http.Request) {
	names, err := s.agentNames(r.Context(), nil)
	if err != nil {
		writeJSON(w, fault.RowOf(fault.KindOf(err).String()).HTTPStatus, errorObject(fault.From(err).Object()))
		return
	}
	serveCard(w, r, a2aserver.ServerCard(baseURL(r), names))
}

// agentCard is GET /a2a/<agent>/.well-known/agent-card.json; an agent that
// is not registered is 404.
func (s *Server) agentCard(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("agent")
	if _, err := s.svc.Agents.Registry.Get(r.Context(), name); err != nil {
		fe := fault.From(err)
		if fe.Kind == fault.NotFound {
			fe = fault.New(fault.NotFound, "no agent %q", name)
		}
		writeJSON(w, fault.RowOf(fe.Kind.String()).HTTPStatus, errorObject(fe.Object()))
		return
	}
	serveCard(w, r, a2aserver.AgentCard(baseURL(r), name))
}

// extendedCard is the card of agent ("" the server's) as p sees it: the
// server's lists only the agents p may call.
func (s *Server) extendedCard(ctx context.Context, p *account.Principal, agent string) (*a2a.AgentCard, error) {
	base := ""
	if r, ok := ctx.Value(a2aRequestKey{}).(*http.Request); ok {
		base = baseURL(r)
	}
	if agent != "" {
		if _, err := s.svc.Agents.Registry.Get(ctx, agent); err != nil {
			return nil, err
		}
		return a2aserver.AgentCard(base, agent), nil
	}
	names, err := s.agentNames(ctx, p)
	if err != nil {
		return nil, err
	}
	return a2aserver.ServerCard(base, names), nil
}

// a2aRequestKey holds the HTTP request of an A2A call in its context, for
// the extended card's URLs.
type a2aRequestKey struct{}

// agentNames are the registered agents, those p may call when p is set.
func (s *Server) agentNames(ctx context.Context, p *account.Principal) ([]string, error) {
	list, err := s.svc.Agents.Registry.List(ctx)
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, e := range list {
		if p == nil || allowsAgent(p, e.Name) {
			names = append(names, e.Name)
		}
	}
	return names, nil
}

// capabilityCard is GET /a2a-cap/<ns>/<id>/.well-known/agent-card.json;
// a capability that is not published is 404. It says what the registry
// says of the capability, so it takes a key as the registry does, unless
// the registry is public (public_registry).
func (s *Server) capabilityCard(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.PublicRegistry {
		if _, _, err := s.dispatcher.admitA2A(r.Context(), r); err != nil {
			writeA2ARefusal(w, err)
			return
		}
	}
	card, err := s.capabilityCardOf(r.Context(), baseURL(r), capabilityRef(r))
	if err != nil {
		fe := fault.From(err)
		writeJSON(w, fault.RowOf(fe.Kind.String()).HTTPStatus, errorObject(fe.Object()))
		return
	}
	serveCard(w, r, card)
}

// serveCard writes a public card in the union of A2A 1.0's and 0.3's
// formats (a2aserver.CardJSON), readable from any origin.
func serveCard(w http.ResponseWriter, r *http.Request, card *a2a.AgentCard) {
	b, err := a2aserver.CardJSON(r.Context(), card)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, errorObject(fault.New(fault.Internal, "the card could not be encoded").Object()))
		return
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, json.RawMessage(b))
}

// extendedCapabilityCard is a capability's card for an A2A call.
func (s *Server) extendedCapabilityCard(ctx context.Context, _ *account.Principal, ref string) (*a2a.AgentCard, error) {
	base := ""
	if r, ok := ctx.Value(a2aRequestKey{}).(*http.Request); ok {
		base = baseURL(r)
	}
	return s.capabilityCardOf(ctx, base, ref)
}

// capabilityCardOf is ref's card, described by its latest published
// version (the registry, when served); an unpublished one is NotFound.
func (s *Server) capabilityCardOf(ctx context.Context, base, ref string) (*a2a.AgentCard, error) {
	description := ""
	if s.svc.Registry != nil {
		ns, id := caprun.SplitRef(ref)
		e, err := s.svc.Registry.Get(ctx, ns, id, "")
		if err != nil {
			return nil, err
		}
		description = e.Description
	}
	return a2aserver.CapabilityCard(base, ref, description), nil
}
