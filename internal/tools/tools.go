// Package tools is the catalog of tools an account sees in a session (and
// through the tool.list / tool.call gateway methods): each permitted A2E
// operation as op.<Operation>, workflow.validate and workflow.execute, and,
// through Provider, capabilities (cap.<ns>/<id>), agents (agent.<name>) and
// the tools of registered MCP servers (mcp.<server>.<tool>). Every provider
// filters by the caller's grants, so a tool an account may not use is never
// listed, and calling it is refused.
package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/telemetry"
)

// Tool describes one tool (RESOLUTIONS' tool/list/resp fields).
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"` // a short human name, where the provider has one
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input_parameters"`  // JSON Schema; null when free-form
	Output      json.RawMessage `json:"output_parameters"` // JSON Schema; null when unknown
	Streaming   bool            `json:"streaming"`
	Idempotent  bool            `json:"idempotent"`
	Tags        []string        `json:"tags"`
	Version     string          `json:"version"`
	Effects     Effects         `json:"effects"`
}

// Effects say what a call of a tool does beyond answering, for hosts that
// choose by it (MCP's tool annotations). They are hints from what the
// provider knows of the tool, never a permission: grants decide.
type Effects struct {
	// ReadOnly: the call changes nothing (a data operation, a GET).
	ReadOnly bool `json:"read_only"`
	// Destructive: the call may change or delete what exists (a POST to an
	// API, a store write, a task sent to an agent).
	Destructive bool `json:"destructive"`
	// OpenWorld: the call leaves the machine (an HTTP API, an agent, another
	// MCP server).
	OpenWorld bool `json:"open_world"`
}

// Result is what a tool call answers (RESOLUTIONS' tool/call/resp data).
// A call that ran and failed is a Result with Success false and an error
// code; a call that could not be made (unknown or forbidden tool, bad
// arguments) is an error instead.
type Result struct {
	Success    bool   `json:"success"`
	ToolName   string `json:"tool_name"`
	Data       any    `json:"data"`
	Summary    string `json:"summary"`
	Truncated  bool   `json:"truncated"`
	Error      string `json:"error"`
	ErrorCode  string `json:"error_code"`
	DurationMs int64  `json:"duration_ms"`
}

// Event is progress of a streaming call (an execution's frame, say).
type Event struct {
	Kind string // progress, artifact, log, status
	Data any
}

// Provider serves the tools whose names it claims.
type Provider interface {
	// Prefix is the start of every name it serves ("op.", "mcp.", ...); a
	// provider may serve exact names too (Handles).
	Handles(name string) bool
	// List returns the tools p may use.
	List(ctx context.Context, p *account.Principal) ([]Tool, error)
	// Call runs a tool for p. onEvent may be nil.
	Call(ctx context.Context, p *account.Principal, name string, args map[string]any, onEvent func(Event)) (*Result, error)
}

// Box is the catalog over its providers.
type Box struct {
	providers []Provider
	ranking   *discovery.Options // nil: discovery's defaults
}

// New makes a Box; providers are asked in order.
func New(providers ...Provider) *Box { return &Box{providers: providers} }

// RankWith makes a query rank with o (the server's discovery settings: its
// expansions and the operator's vocabulary) instead of discovery's
// defaults; options discovery refuses are an error here, not at a listing.
func (b *Box) RankWith(o discovery.Options) error {
	if _, err := discovery.NewIndex(o); err != nil {
		return err
	}
	b.ranking = &o
	return nil
}

// Add adds a provider (capabilities and agents land with their issues).
func (b *Box) Add(p Provider) { b.providers = append(b.providers, p) }

// ListOptions filter a list.
type ListOptions struct {
	// Query, when not blank, keeps the tools relevant to it, most relevant
	// first (discovery's BM25 over name, description and tags).
	Query string
	Tags  []string // non-empty: only tools with one of these tags
	Kind  string   // non-empty: only tools of this kind (one of Kinds)
}

// Kinds are the kinds of tool, each the start of its tools' names: op.X,
// workflow.validate and workflow.execute, cap.<ns>/<id> (and
// capability.decide, which answers capability runs), agent.<name>,
// mcp.<server>.<tool>.
var Kinds = []string{"op", "workflow", "cap", "agent", "mcp"}

// KindOf is the kind of the tool named name (one of Kinds), or "".
func KindOf(name string) string {
	prefix, _, _ := strings.Cut(name, ".")
	switch {
	case prefix == "capability":
		return "cap"
	case slices.Contains(Kinds, prefix):
		return prefix
	}
	return ""
}

// List returns the tools p may use, filtered by o: sorted by name, or by
// relevance to a query.
func (b *Box) List(ctx context.Context, p *account.Principal, o ListOptions) ([]Tool, error) {
	var out []Tool
	for _, pr := range b.providers {
		ts, err := pr.List(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if hasTag(t, o.Tags) && (o.Kind == "" || KindOf(t.Name) == o.Kind) {
				out = append(out, t)
			}
		}
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	if strings.TrimSpace(o.Query) != "" {
		out = b.rank(out, o.Query)
	}
	if out == nil {
		out = []Tool{}
	}
	return out, nil
}

func hasTag(t Tool, tags []string) bool {
	return len(tags) == 0 || slices.ContainsFunc(tags, func(tag string) bool { return slices.Contains(t.Tags, tag) })
}

// rank keeps the tools relevant to query, most relevant first. The index is
// built for the call: an account's tools are a few hundred at most, and they
// differ by account (MCP servers, grants).
func (b *Box) rank(ts []Tool, query string) []Tool {
	o := discovery.DefaultOptions()
	if b.ranking != nil {
		o = *b.ranking
	}
	ix, err := discovery.NewIndex(o)
	if err != nil {
		return nil // not reached: RankWith checked the options
	}
	entries := make([]discovery.Entry, len(ts))
	byName := make(map[string]Tool, len(ts))
	for i, t := range ts {
		summary, _, _ := strings.Cut(t.Description, ".")
		entries[i] = discovery.Entry{Kind: discovery.KindTool, ID: t.Name, Name: t.Name, Summary: summary,
			Description: t.Description, Tags: t.Tags}
		byName[t.Name] = t
	}
	if err := ix.Upsert(entries...); err != nil {
		return nil
	}
	hits := ix.Search(query, nil, len(ts))
	out := make([]Tool, 0, len(hits))
	for _, h := range hits {
		out = append(out, byName[h.Entry.ID])
	}
	return out
}

// Call runs the named tool for p. An unknown name is NotFound (unknown_tool);
// a tool p may not use is PermissionDenied (tool_denied).
func (b *Box) Call(ctx context.Context, p *account.Principal, name string, args map[string]any, onEvent func(Event)) (*Result, error) {
	for _, pr := range b.providers {
		if pr.Handles(name) {
			start := time.Now()
			// Every ingress's tool call (session, MCP, A2A's tool agents) is
			// the GenAI span "execute_tool <name>".
			ctx, span := telemetry.StartTool(ctx, name, "")
			r, err := pr.Call(ctx, p, name, args, onEvent)
			telemetry.End(span, err)
			if err != nil {
				return nil, err
			}
			r.ToolName = name
			if r.DurationMs == 0 {
				r.DurationMs = time.Since(start).Milliseconds()
			}
			return r, nil
		}
	}
	return nil, UnknownTool(name)
}

// UnknownTool is the error for a name no provider serves.
func UnknownTool(name string) *fault.Error {
	return fault.New(fault.NotFound, "unknown tool %q", name).WithDetail("tool", name).
		WithSuggestions("List the tools with tool/list/req")
}

// Denied is the error for a tool the account may not use.
func Denied(name string) *fault.Error {
	return fault.New(fault.PermissionDenied, "tool %q is not permitted for this account", name).WithDetail("tool", name)
}
