package discovery

import (
	"fmt"
	"slices"
)

// Kind is what an entry describes.
type Kind string

// The kinds of entries.
const (
	KindOperation  Kind = "operation"  // one operation of an API (OpenAPI operation)
	KindAPI        Kind = "api"        // an API as a whole (an API knowledge-base entry)
	KindCapability Kind = "capability" // an A2S capability
	KindAgent      Kind = "agent"      // an HTTP task agent
	KindTool       Kind = "tool"       // a session tool (A2E operation, MCP tool, ...)
	KindKnowledge  Kind = "knowledge"  // a knowledge document
)

// Kinds are the kinds of entries, in the order the documentation lists
// them.
var Kinds = []Kind{KindOperation, KindAPI, KindCapability, KindAgent, KindTool, KindKnowledge}

// Valid reports whether k is one of the known kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// Param is one parameter of an entry: its name and what it means.
type Param struct {
	Name        string `json:"name"`
	In          string `json:"in,omitempty"` // path, query, header, cookie, body
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description,omitempty"`
}

// Entry is one thing an agent may discover. (Kind, ID) identifies it in an
// Index; Source groups the entries one registry publishes together (the API
// name of an OpenAPI document, a capability namespace, an MCP server) so
// that Replace can swap them at once.
type Entry struct {
	Kind        Kind     `json:"kind"`
	ID          string   `json:"id"`
	Source      string   `json:"source,omitempty"`
	Name        string   `json:"name"`
	Summary     string   `json:"summary,omitempty"`
	Description string   `json:"description,omitempty"`
	Method      string   `json:"method,omitempty"` // operations: HTTP method, upper case
	URL         string   `json:"url,omitempty"`    // operations: URL template (server + path)
	Parameters  []Param  `json:"parameters,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	// Permission is an opaque key the caller's Filter decides on (for
	// example "apis:crm.listCustomers"). It is never part of an answer.
	Permission string `json:"-"`
}

// Key is the identity of an entry in an index.
type Key struct {
	Kind Kind
	ID   string
}

// Key returns the entry's identity.
func (e *Entry) Key() Key { return Key{e.Kind, e.ID} }

// validate checks what the index needs of an entry.
func (e *Entry) validate() error {
	if !e.Kind.Valid() {
		return fmt.Errorf("entry %q: unknown kind %q", e.ID, e.Kind)
	}
	if e.ID == "" {
		return fmt.Errorf("entry of kind %s: empty id", e.Kind)
	}
	return nil
}

// Filter decides whether the caller may see an entry; nil lets every entry
// through. It must be safe for concurrent use and cheap: it runs for every
// entry that matches a query. It receives a copy, so it cannot change the
// index.
type Filter func(Entry) bool

// Hit is one search result.
type Hit struct {
	Entry Entry   `json:"entry"`
	Score float64 `json:"score"`
}
