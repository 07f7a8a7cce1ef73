package store

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// Knowledge bases (A2E "API Knowledge Base"): documents an admin imports so
// agents can discover what they may call. An "openapi" base is an OpenAPI
// 3.0/3.1 document whose operations become API entries (NAME.operationId);
// a "text" base is free text (Markdown, JSON or YAML) searched as documents.
// The store keeps the documents; the discovery index is built from them.

// Knowledge base kinds.
const (
	KnowledgeOpenAPI = "openapi"
	KnowledgeText    = "text"
)

// Bounds of knowledge bases.
const (
	MaxKnowledgeBases         = 1000
	MaxKnowledgeDocumentBytes = 4 << 20
	MaxKnowledgeNameBytes     = 64
)

// KnowledgeBase is one imported document.
type KnowledgeBase struct {
	Name      string // the id agents are granted (apis / knowledge_bases)
	Kind      string // openapi | text
	Format    string // json | yaml | markdown | text
	Document  []byte
	Checksum  string // sha256:<hex> of Document
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// KnowledgeBases keeps knowledge bases.
type KnowledgeBases interface {
	// PutKnowledgeBase creates or replaces the base of that name (times set
	// by the store; a replaced base keeps its CreatedAt).
	PutKnowledgeBase(ctx context.Context, kb KnowledgeBase) (KnowledgeBase, error)
	// GetKnowledgeBase returns a base with its document; NotFound when absent.
	GetKnowledgeBase(ctx context.Context, name string) (KnowledgeBase, error)
	// ListKnowledgeBases returns every base, with documents, by name.
	ListKnowledgeBases(ctx context.Context) ([]KnowledgeBase, error)
	// DeleteKnowledgeBase removes a base; NotFound when absent.
	DeleteKnowledgeBase(ctx context.Context, name string) error
}

// CheckKnowledgeBase checks a base before it is stored.
func CheckKnowledgeBase(kb KnowledgeBase) error {
	if err := CheckKnowledgeName(kb.Name); err != nil {
		return err
	}
	if kb.Kind != KnowledgeOpenAPI && kb.Kind != KnowledgeText {
		return invalid("kind", "must be openapi or text, got %q", truncate(kb.Kind))
	}
	if len(kb.Document) == 0 {
		return invalid("document", "is required")
	}
	if len(kb.Document) > MaxKnowledgeDocumentBytes {
		return invalid("document", "is %d bytes long, over the limit of %d", len(kb.Document), MaxKnowledgeDocumentBytes)
	}
	if err := CheckText("format", kb.Format, 16, false); err != nil {
		return err
	}
	if err := CheckText("checksum", kb.Checksum, MaxDigestBytes, false); err != nil {
		return err
	}
	return CheckText("created_by", kb.CreatedBy, MaxIDBytes, false)
}

// CheckKnowledgeName checks a knowledge base name: letters, digits, '_' and
// '-' (no '.', which separates NAME.operationId).
func CheckKnowledgeName(name string) error {
	if name == "" {
		return invalid("name", "is required")
	}
	if len(name) > MaxKnowledgeNameBytes {
		return invalid("name", "is %d bytes long, over the limit of %d", len(name), MaxKnowledgeNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return invalid("name", "holds %q at byte %d; use letters, digits, '_' and '-'", rune(c), i)
		}
	}
	return nil
}

// KnowledgeFull is the error when the server holds all the bases it may.
func KnowledgeFull() *fault.Error {
	return fault.New(fault.Invalid, "at most %d knowledge bases", MaxKnowledgeBases).
		WithSuggestions("Delete a knowledge base you no longer use")
}
