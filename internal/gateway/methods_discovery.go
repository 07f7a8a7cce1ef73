package gateway

import (
	"context"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/catalog"
	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// Catalog is discovery over what the server offers (internal/catalog).
type Catalog interface {
	Search(ctx context.Context, p *account.Principal, query string, kind discovery.Kind, k int) []discovery.Hit
	APIs(p *account.Principal) []discovery.Entry
	Import(ctx context.Context, name, kind, format string, doc []byte, by string) (catalog.KnowledgeInfo, error)
	Delete(ctx context.Context, name string) error
	List() []catalog.KnowledgeInfo
	KnowledgeBases(p *account.Principal) []catalog.KnowledgeInfo
	RefreshCapabilities(ctx context.Context) error
	RefreshAgents(ctx context.Context) error
	Explain(query string) []discovery.QueryTerm
	Learning() bool
	Learn(ctx context.Context, p *account.Principal, query string, kind discovery.Kind, id string) (catalog.Learnt, error)
	Usage(kind discovery.Kind, id string) []catalog.EntryUsage
	Forget(ctx context.Context, kind discovery.Kind, id string) (int, error)
}

// apiEntry is an API operation as availableApis lists it.
type apiEntry struct {
	ID      string `json:"id"`
	Method  string `json:"method,omitempty"`
	URL     string `json:"url,omitempty"`
	Summary string `json:"summary,omitempty"`
}

func apiEntryOf(e discovery.Entry) apiEntry {
	return apiEntry{ID: e.ID, Method: e.Method, URL: e.URL, Summary: e.Summary}
}

// match is one ranked result of a search.
type match struct {
	Kind        discovery.Kind `json:"kind"`
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Summary     string         `json:"summary,omitempty"`
	Description string         `json:"description,omitempty"`
	Method      string         `json:"method,omitempty"`
	URL         string         `json:"url,omitempty"`
	Source      string         `json:"source,omitempty"`
	Score       float64        `json:"score"`
}

func matchOf(h discovery.Hit, withDescription bool) match {
	m := match{Kind: h.Entry.Kind, ID: h.Entry.ID, Name: h.Entry.Name, Summary: h.Entry.Summary, Method: h.Entry.Method,
		URL: h.Entry.URL, Source: h.Entry.Source, Score: float64(int(h.Score*1000)) / 1000}
	if withDescription {
		m.Description = h.Entry.Description
	}
	return m
}

// knowledgeSearch is POST /api/v1/knowledge/search {query, kb_id?, type?, top_k?}.
func (s *Server) knowledgeSearch(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	query := a.String("query")
	kb := a.String("kb_id")
	kind := a.String("type")
	k := a.Int("top_k")
	if err := catalog.CheckKind("params.type", discovery.Kind(kind)); err != nil {
		return err
	}
	if kb != "" {
		query += " source:" + kb
	}
	hits := s.svc.Catalog.Search(ctx, c.Principal, query, discovery.Kind(kind), k)
	out := make([]match, len(hits))
	for i, h := range hits {
		out[i] = matchOf(h, true)
	}
	return w.Complete(map[string]any{"results": out})
}

// capabilitySearch is capability.search {query, top_k?}: {results} as
// knowledge.search answers them, of A2S capabilities only.
func (s *Server) capabilitySearch(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	hits := s.svc.Catalog.Search(ctx, c.Principal, a.String("query"), discovery.KindCapability, a.Int("top_k"))
	out := make([]match, len(hits))
	for i, h := range hits {
		out[i] = matchOf(h, true)
	}
	return w.Complete(map[string]any{"results": out})
}

// knowledgeBaseItem is a knowledge base as the A2E reference server lists it
// ({id, type, description, items_count}), with its format and last update.
type knowledgeBaseItem struct {
	ID string `json:"id"`
	// Type is the knowledge search type that finds its sections, so that
	// a client may pass it back as search's type.
	Type        discovery.Kind `json:"type"`
	Description string         `json:"description"`
	ItemsCount  int            `json:"items_count"`
	Format      string         `json:"format,omitempty"`
	UpdatedAt   string         `json:"updated_at"`
}

// knowledgeBases is GET /api/v1/knowledge/bases: the text knowledge bases
// the account's knowledge_bases grants cover, each with its sections as
// items; {knowledgeBases, count} as in the A2E reference.
func (s *Server) knowledgeBases(_ context.Context, c *Call, _ args, w *e2a.StreamWriter) error {
	infos := s.svc.Catalog.KnowledgeBases(c.Principal)
	out := make([]knowledgeBaseItem, len(infos))
	for i, kb := range infos {
		out[i] = knowledgeBaseItem{ID: kb.Name, Type: discovery.KindKnowledge, Description: kb.Title,
			ItemsCount: kb.Entries, Format: kb.Format, UpdatedAt: kb.UpdatedAt}
	}
	return w.Complete(map[string]any{"knowledgeBases": out, "count": len(out)})
}

// queryCapabilities narrows the capabilities answer to the entries relevant
// to query: the ranked matches, and the lists of the answer cut to them.
func (s *Server) queryCapabilities(ctx context.Context, pr *account.Principal, query string, k int, ops []string) map[string]any {
	hits := s.svc.Catalog.Search(ctx, pr, query, "", k)
	matches := make([]match, 0, len(hits))
	apis := []apiEntry{}
	supported := []string{}
	kbs := []string{}
	caps := []string{}
	for _, h := range hits {
		matches = append(matches, matchOf(h, false))
		switch h.Entry.Kind {
		case discovery.KindOperation:
			apis = append(apis, apiEntryOf(h.Entry))
		case discovery.KindTool:
			if name, ok := strings.CutPrefix(h.Entry.ID, "op."); ok && slices.Contains(ops, name) {
				supported = append(supported, name)
			}
		case discovery.KindKnowledge:
			if !slices.Contains(kbs, h.Entry.Source) {
				kbs = append(kbs, h.Entry.Source)
			}
		case discovery.KindCapability:
			caps = append(caps, h.Entry.ID)
		}
	}
	return map[string]any{"matches": matches, "availableApis": apis, "supportedOperations": supported,
		"knowledgeBases": kbs, "capabilities": caps}
}

// adminAPIsImport is POST /api/v1/admin/apis {name, document, kind?, format?}.
func (s *Server) adminAPIsImport(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	name := a.String("name")
	doc := a.String("document")
	kind := a.String("kind")
	format := a.String("format")
	info, err := s.svc.Catalog.Import(ctx, name, kind, format, []byte(doc), c.Principal.ID)
	if err != nil {
		return err
	}
	return w.Complete(info)
}

func (s *Server) adminAPIsList(_ context.Context, c *Call, _ args, w *e2a.StreamWriter) error {
	return w.Complete(map[string]any{"apis": s.svc.Catalog.List()})
}

// adminDiscoveryExplain is GET /api/v1/admin/discovery/explain?query=: the
// terms the query searches for, each with its weight, why, the query word
// it came from and how many entries hold it.
func (s *Server) adminDiscoveryExplain(_ context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	query := a.String("query")
	terms := s.svc.Catalog.Explain(query)
	if terms == nil {
		terms = []discovery.QueryTerm{}
	}
	return w.Complete(map[string]any{"query": query, "terms": terms})
}

func (s *Server) adminAPIsDelete(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	name := a.String("id")
	if err := s.svc.Catalog.Delete(ctx, name); err != nil {
		return err
	}
	return w.Complete(map[string]any{"deleted": name})
}

// discoveryFeedback is POST /api/v1/discovery/feedback {query, id, kind?}:
// the entry id (of kind, when several kinds have that id) answered query.
// The answer lists the words learnt.
func (s *Server) discoveryFeedback(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	query := a.String("query")
	id := a.String("id")
	kind := a.String("kind")
	learnt, err := s.svc.Catalog.Learn(ctx, c.Principal, query, discovery.Kind(kind), id)
	if err != nil {
		return err
	}
	return w.Complete(learnt)
}

// adminDiscoveryUsage is GET /api/v1/admin/discovery/usage[?id=&kind=]:
// the words use taught, per entry, each with how many accounts taught it.
func (s *Server) adminDiscoveryUsage(_ context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("id")
	kind := a.String("kind")
	if err := catalog.CheckKind("params.kind", discovery.Kind(kind)); err != nil {
		return err
	}
	return w.Complete(map[string]any{"entries": s.svc.Catalog.Usage(discovery.Kind(kind), id)})
}

// adminDiscoveryForget is DELETE /api/v1/admin/discovery/usage[?kind=&id=]:
// forget what use taught about one entry, or about all of them.
func (s *Server) adminDiscoveryForget(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	id := a.String("id")
	kind := a.String("kind")
	n, err := s.svc.Catalog.Forget(ctx, discovery.Kind(kind), id)
	if err != nil {
		return err
	}
	return w.Complete(map[string]any{"deleted": n})
}
