// Package catalog keeps the discovery index (internal/discovery) in step with
// what the server offers — A2E operations, the API knowledge bases an admin
// imported (each OpenAPI operation an entry), free-text knowledge bases,
// published A2S capabilities — and answers searches for an account, filtered
// by its grants before ranking: an account never sees what it may not use.
package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

// Permission keys of entries (discovery.Entry.Permission).
const (
	permOp        = "op:"    // + operation name
	permAPI       = "api:"   // + NAME.operationId or NAME
	permKnowledge = "kb:"    // + knowledge base name
	permCap       = "cap:"   // + NS/ID
	permAgent     = "agent:" // + agent name
)

// Config wires a Service.
type Config struct {
	Store store.KnowledgeBases
	// Operations lists the A2E operations of the catalog.
	Operations []op.Spec
	// Capabilities gives the published capabilities (nil: none).
	Capabilities func(ctx context.Context) ([]*caprun.Published, error)
	// Agents gives the registered HTTP task agents' names (nil: none).
	Agents func(ctx context.Context) ([]string, error)
	// Audit is the server's audit policy for capabilities.
	Audit policy.AuditPolicy
	// Embedder, when set, makes ranking hybrid: BM25 fused with vector
	// similarity (reciprocal rank fusion); nil: BM25 alone.
	Embedder discovery.Embedder
	// NoWordNet turns the index's WordNet expansion off (it is on in
	// discovery.DefaultOptions).
	NoWordNet bool
	// NoWordVectors turns the index's word vector expansion off (it is on
	// in discovery.DefaultOptions).
	NoWordVectors bool
	// Abbreviations are the operator's shorthands, merged over
	// discovery.DefaultAbbreviations (an empty value removes one); Synonyms
	// are groups added to discovery.DefaultSynonyms.
	Abbreviations map[string]string
	Synonyms      [][]string
	// Usage, when set, keeps what use teaches (usage.go): learning from
	// use is on. UsageRetention drops a word an account taught that long
	// after it last did (0: never).
	Usage          store.DiscoveryUsageStore
	UsageRetention time.Duration
	// VectorWeight, when set, is the hybrid fusion's vector weight
	// (discovery.Hybrid.VectorWeight; default 1).
	VectorWeight *float64
	Logger       *slog.Logger
}

// Explain shows how the catalog's index analyzes query
// (discovery.Index.Explain): for an administrator, since the expansions name
// words of every entry.
func (s *Service) Explain(query string) []discovery.QueryTerm { return s.ix.Explain(query) }

// RankingOptions are the discovery options the catalog ranks with (the
// defaults with the server's settings applied), for other rankings that
// should agree with it (a session's tool listing).
func (s *Service) RankingOptions() discovery.Options { return s.ix.Options() }

// Service is the catalog.
type Service struct {
	cfg Config
	ix  *discovery.Index
	hy  *discovery.Hybrid // nil without an embedder

	mux sync.Mutex // serialises writers

	mu    sync.RWMutex
	hosts map[string][]string             // knowledge base -> hosts of its API
	caps  map[string]policy.CapabilityRun // cap entry id -> what decides who may run it
	kbs   map[string]store.KnowledgeBase  // without documents
	apis  map[string][]discovery.Entry    // knowledge base -> its operation entries
	order []string                        // knowledge bases by name

	usageMu  sync.Mutex // serialises loads of usage into the index
	lastSync time.Time  // the last load of usage (under mu)
}

// New makes an empty catalog; Load fills it.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	opts := discovery.DefaultOptions()
	if cfg.NoWordNet {
		opts.WordNet.Weight = 0
	}
	if cfg.NoWordVectors {
		opts.WordVectors.Weight = 0
	}
	if len(cfg.Abbreviations) > 0 {
		m := maps.Clone(opts.Abbreviations)
		for k, v := range cfg.Abbreviations {
			if k = strings.ToLower(k); v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		opts.Abbreviations = m
	}
	if len(cfg.Synonyms) > 0 {
		opts.Synonyms = append(slices.Clone(opts.Synonyms), cfg.Synonyms...)
	}
	ix, err := discovery.NewIndex(opts)
	if err != nil {
		panic(err) // the defaults are valid, with or without WordNet and word vectors; discovery's tests check it
	}
	s := &Service{cfg: cfg, ix: ix, hosts: map[string][]string{}, caps: map[string]policy.CapabilityRun{},
		kbs: map[string]store.KnowledgeBase{}, apis: map[string][]discovery.Entry{}}
	if cfg.Embedder != nil {
		s.hy = discovery.NewHybrid(s.ix, cfg.Embedder, cfg.Logger)
		if cfg.VectorWeight != nil {
			s.hy.VectorWeight = *cfg.VectorWeight
		}
	}
	return s
}

// replace swaps the entries of (kind, source), embedding them when ranking
// is hybrid. An embedding failure keeps the entries, ranked by BM25 alone.
func (s *Service) replace(ctx context.Context, kind discovery.Kind, source string, entries []discovery.Entry) error {
	if s.hy != nil {
		err := s.hy.Replace(ctx, kind, source, entries)
		if err == nil {
			return nil
		}
		s.cfg.Logger.Warn("discovery: entries not embedded; BM25 only", "kind", kind, "source", source, "error", err)
	}
	return s.ix.Replace(kind, source, entries)
}

// Load indexes what use taught, the operations, every stored knowledge base
// and the published capabilities. A knowledge base that no longer imports is logged and left
// out, so one bad document never keeps the server from starting.
func (s *Service) Load(ctx context.Context) error {
	// Usage first: the entries then come with it, written once.
	if err := s.SyncUsage(ctx); err != nil {
		return err
	}
	ops := make([]discovery.Entry, 0, len(s.cfg.Operations))
	for _, spec := range s.cfg.Operations {
		ops = append(ops, discovery.Entry{Kind: discovery.KindTool, ID: "op." + spec.Name, Source: "operations",
			Name: spec.Name, Summary: spec.Summary, Description: spec.Description, Tags: []string{"operation"},
			Permission: permOp + spec.Name})
	}
	if err := s.replace(ctx, discovery.KindTool, "operations", ops); err != nil {
		return err
	}
	kbs, err := s.cfg.Store.ListKnowledgeBases(ctx)
	if err != nil {
		return err
	}
	for _, kb := range kbs {
		if err := s.index(ctx, kb); err != nil {
			s.cfg.Logger.Warn("knowledge base left out of discovery", "name", kb.Name, "error", err)
		}
	}
	if err := s.RefreshAgents(ctx); err != nil {
		return err
	}
	return s.RefreshCapabilities(ctx)
}

// RefreshAgents indexes the registered agents again (after a registration
// or a removal).
func (s *Service) RefreshAgents(ctx context.Context) error {
	if s.cfg.Agents == nil {
		return nil
	}
	names, err := s.cfg.Agents(ctx)
	if err != nil {
		return err
	}
	entries := make([]discovery.Entry, 0, len(names))
	for _, n := range names {
		entries = append(entries, discovery.Entry{Kind: discovery.KindAgent, ID: "agent." + n, Source: "agents", Name: n,
			Summary: "HTTP task agent " + n, Tags: []string{"agent"}, Permission: permAgent + n})
	}
	s.mux.Lock()
	defer s.mux.Unlock()
	return s.replace(ctx, discovery.KindAgent, "agents", entries)
}

// RefreshCapabilities indexes the published capabilities again (after a
// publish).
func (s *Service) RefreshCapabilities(ctx context.Context) error {
	if s.cfg.Capabilities == nil {
		return nil
	}
	pubs, err := s.cfg.Capabilities(ctx)
	if err != nil {
		return err
	}
	entries := make([]discovery.Entry, 0, len(pubs))
	caps := make(map[string]policy.CapabilityRun, len(pubs))
	for _, p := range pubs {
		id := caprun.ToolPrefix + p.Namespace + "/" + p.ID
		run := policy.CapabilityRun{Ref: p.Ref()}
		if perm := p.Doc.Permissions; perm != nil {
			run.Level = perm.Level.Value
			for _, c := range perm.Capabilities {
				run.Capabilities = append(run.Capabilities, c.Value)
			}
		}
		if p.Doc.Audit != nil {
			run.AuditStatus = p.Doc.Audit.Status.Value
		}
		caps[id] = run
		var params []discovery.Param
		for _, in := range p.Doc.Inputs {
			params = append(params, discovery.Param{Name: in.Name, Description: in.Description.Value})
		}
		name := p.Doc.Name.Value
		if name == "" {
			name = p.ID
		}
		entries = append(entries, discovery.Entry{Kind: discovery.KindCapability, ID: id, Source: "capabilities",
			Name: name, Summary: firstLine(p.Doc.Description.Value), Description: p.Doc.Description.Value,
			Parameters: params, Tags: []string{"capability", p.Doc.Type.Value, p.Namespace}, Permission: permCap + id})
	}
	s.mux.Lock()
	defer s.mux.Unlock()
	if err := s.replace(ctx, discovery.KindCapability, "capabilities", entries); err != nil {
		return err
	}
	s.mu.Lock()
	s.caps = caps
	s.mu.Unlock()
	return nil
}

// KnowledgeInfo describes a stored knowledge base.
type KnowledgeInfo struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Format   string `json:"format"`
	Checksum string `json:"checksum"`
	Entries  int    `json:"entries"`
	// Title is a text knowledge base's first section title: its first
	// Markdown heading, or its name when text comes before any heading.
	Title     string   `json:"title,omitempty"`
	Hosts     []string `json:"hosts,omitempty"`
	CreatedBy string   `json:"created_by,omitempty"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

// Import stores a knowledge base (replacing one of that name) and indexes
// it. An OpenAPI document that does not load is refused, naming why.
func (s *Service) Import(ctx context.Context, name, kind, format string, doc []byte, by string) (KnowledgeInfo, error) {
	if kind == "" {
		kind = store.KnowledgeOpenAPI
	}
	sum := sha256.Sum256(doc)
	kb := store.KnowledgeBase{Name: name, Kind: kind, Format: format, Document: doc, Checksum: "sha256:" + hex.EncodeToString(sum[:]), CreatedBy: by}
	if err := store.CheckKnowledgeBase(kb); err != nil {
		return KnowledgeInfo{}, err
	}
	if kind == store.KnowledgeOpenAPI {
		if _, _, err := discovery.ImportOpenAPI(name, doc); err != nil {
			return KnowledgeInfo{}, fault.New(fault.Invalid, "document: %v", err).WithDetail("field", "document")
		}
	}
	stored, err := s.cfg.Store.PutKnowledgeBase(ctx, kb)
	if err != nil {
		return KnowledgeInfo{}, err
	}
	if err := s.index(ctx, stored); err != nil {
		return KnowledgeInfo{}, err
	}
	return s.info(stored.Name), nil
}

// Delete removes a knowledge base and its entries.
func (s *Service) Delete(ctx context.Context, name string) error {
	if err := s.cfg.Store.DeleteKnowledgeBase(ctx, name); err != nil {
		return err
	}
	s.mux.Lock()
	defer s.mux.Unlock()
	_ = s.ix.Replace(discovery.KindOperation, name, nil) // removing needs no embedding
	_ = s.ix.Replace(discovery.KindAPI, name, nil)
	_ = s.ix.Replace(discovery.KindKnowledge, name, nil)
	s.mu.Lock()
	delete(s.kbs, name)
	delete(s.hosts, name)
	delete(s.apis, name)
	s.order = slices.DeleteFunc(s.order, func(n string) bool { return n == name })
	s.mu.Unlock()
	return nil
}

// List describes every knowledge base.
func (s *Service) List() []KnowledgeInfo {
	s.mu.RLock()
	names := slices.Clone(s.order)
	s.mu.RUnlock()
	out := make([]KnowledgeInfo, 0, len(names))
	for _, n := range names {
		out = append(out, s.info(n))
	}
	return out
}

// KnowledgeBases describes the text knowledge bases p's knowledge_bases
// grants cover, by name: the ones whose sections p's knowledge searches can
// find. OpenAPI knowledge bases are not listed: their operations are
// governed by the apis grants and listed as the account's availableApis.
func (s *Service) KnowledgeBases(p *account.Principal) []KnowledgeInfo {
	s.mu.RLock()
	var names []string
	for _, n := range s.order {
		if s.kbs[n].Kind == store.KnowledgeText && AllowsKnowledgeBase(p.Permissions, n) {
			names = append(names, n)
		}
	}
	s.mu.RUnlock()
	out := make([]KnowledgeInfo, 0, len(names))
	for _, n := range names {
		if info := s.info(n); info.Name != "" { // not deleted since
			out = append(out, info)
		}
	}
	return out
}

func (s *Service) info(name string) KnowledgeInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	kb := s.kbs[name]
	n := len(s.apis[name])
	var title string
	if kb.Kind == store.KnowledgeText {
		sections := s.ix.Entries(func(e discovery.Entry) bool { return e.Kind == discovery.KindKnowledge && e.Source == name })
		n = len(sections)
		for _, e := range sections {
			if e.ID == name+"#0" {
				title = e.Name
			}
		}
	}
	return KnowledgeInfo{Name: kb.Name, Kind: kb.Kind, Format: kb.Format, Checksum: kb.Checksum, Entries: n, Title: title,
		Hosts: s.hosts[name], CreatedBy: kb.CreatedBy,
		CreatedAt: kb.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		UpdatedAt: kb.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000000Z07:00")}
}

// index puts a knowledge base's entries in the index.
func (s *Service) index(ctx context.Context, kb store.KnowledgeBase) error {
	var ops []discovery.Entry
	var hosts []string
	var api *discovery.Entry
	var texts []discovery.Entry
	switch kb.Kind {
	case store.KnowledgeOpenAPI:
		a, entries, err := discovery.ImportOpenAPI(kb.Name, kb.Document)
		if err != nil {
			return err
		}
		a.Permission = permAPI + kb.Name
		api = &a
		for i := range entries {
			entries[i].Permission = permAPI + entries[i].ID
			if u, err := url.Parse(entries[i].URL); err == nil && u.Host != "" && !slices.Contains(hosts, u.Host) {
				hosts = append(hosts, u.Host)
			}
		}
		ops = entries
	default:
		texts = textEntries(kb)
	}
	s.mux.Lock()
	defer s.mux.Unlock()
	if err := s.replace(ctx, discovery.KindOperation, kb.Name, ops); err != nil {
		return err
	}
	var apis []discovery.Entry
	if api != nil {
		apis = []discovery.Entry{*api}
	}
	if err := s.replace(ctx, discovery.KindAPI, kb.Name, apis); err != nil {
		return err
	}
	if err := s.replace(ctx, discovery.KindKnowledge, kb.Name, texts); err != nil {
		return err
	}
	kb.Document = nil
	s.mu.Lock()
	if _, known := s.kbs[kb.Name]; !known {
		s.order = append(s.order, kb.Name)
		slices.Sort(s.order)
	}
	s.kbs[kb.Name], s.hosts[kb.Name], s.apis[kb.Name] = kb, hosts, ops
	s.mu.Unlock()
	return nil
}

// textEntries splits a text knowledge base into sections at Markdown
// headings: each section is an entry, so a search finds the part that
// answers.
func textEntries(kb store.KnowledgeBase) []discovery.Entry {
	const maxSections = 500
	var out []discovery.Entry
	title, body := kb.Name, []string{}
	flush := func() {
		text := strings.TrimSpace(strings.Join(body, "\n"))
		if text == "" || len(out) >= maxSections {
			return
		}
		out = append(out, discovery.Entry{Kind: discovery.KindKnowledge, ID: kb.Name + "#" + strconv.Itoa(len(out)), Source: kb.Name,
			Name: title, Summary: firstLine(text), Description: text, Tags: []string{"knowledge", kb.Name}, Permission: permKnowledge + kb.Name})
	}
	for _, line := range strings.Split(string(kb.Document), "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "#") {
			flush()
			title, body = strings.TrimSpace(strings.TrimLeft(t, "#")), nil
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}

// Filter is what p may see.
func (s *Service) Filter(p *account.Principal) discovery.Filter {
	perms := p.Permissions
	s.mu.RLock()
	caps := s.caps
	s.mu.RUnlock()
	return func(e discovery.Entry) bool {
		switch {
		case strings.HasPrefix(e.Permission, permOp):
			return perms.AllowsOperation(strings.TrimPrefix(e.Permission, permOp))
		case strings.HasPrefix(e.Permission, permAPI):
			return AllowsAPI(perms, strings.TrimPrefix(e.Permission, permAPI))
		case strings.HasPrefix(e.Permission, permKnowledge):
			return AllowsKnowledgeBase(perms, strings.TrimPrefix(e.Permission, permKnowledge))
		case strings.HasPrefix(e.Permission, permAgent):
			name := strings.TrimPrefix(e.Permission, permAgent)
			return slices.Contains(perms.Agents, name) || slices.Contains(perms.Agents, "*")
		case strings.HasPrefix(e.Permission, permCap):
			run, ok := caps[strings.TrimPrefix(e.Permission, permCap)]
			return ok && perms.CheckCapabilityRun(run, s.cfg.Audit) == nil
		}
		return false
	}
}

// AllowsAPI reports whether the apis grants cover id ("NAME" or
// "NAME.operationId"): a grant "NAME" covers the whole API, "NAME.op" one
// operation, "*" everything.
func AllowsAPI(p policy.Permissions, id string) bool {
	kb, _, _ := strings.Cut(id, ".")
	for _, g := range p.APIs {
		if g == "*" || g == id || g == kb {
			return true
		}
	}
	return false
}

// AllowsKnowledgeBase reports whether the knowledge_bases grants cover the
// text knowledge base name ("*" covers all).
func AllowsKnowledgeBase(p policy.Permissions, name string) bool {
	return slices.Contains(p.KnowledgeBases, name) || slices.Contains(p.KnowledgeBases, "*")
}

// Search ranks what p may see for query (top k; 0: 10). kind narrows to one
// kind of entry ("" all).
func (s *Service) Search(ctx context.Context, p *account.Principal, query string, kind discovery.Kind, k int) []discovery.Hit {
	if k <= 0 {
		k = 10
	}
	filter := s.Filter(p)
	if kind != "" {
		inner := filter
		filter = func(e discovery.Entry) bool { return e.Kind == kind && inner(e) }
	}
	if s.hy != nil {
		return s.hy.Search(ctx, query, filter, k)
	}
	return s.ix.Search(query, filter, k)
}

// APIs are the API operations p may call, by id.
func (s *Service) APIs(p *account.Principal) []discovery.Entry {
	filter := s.Filter(p)
	out := s.ix.Entries(func(e discovery.Entry) bool { return e.Kind == discovery.KindOperation && filter(e) })
	slices.SortFunc(out, func(a, b discovery.Entry) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// HostsOf are the hosts of the APIs the grants name (RESOLUTIONS: an apis
// grant implies the hosts of those API entries).
func (s *Service) HostsOf(apis []string) []string {
	if len(apis) == 0 {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for _, g := range apis {
		kb, _, _ := strings.Cut(g, ".")
		names := []string{kb}
		if g == "*" {
			names = s.order
		}
		for _, n := range names {
			for _, h := range s.hosts[n] {
				if !slices.Contains(out, h) {
					out = append(out, h)
				}
			}
		}
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
