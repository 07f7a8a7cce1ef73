package capreg

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// DefaultNamespace holds capabilities published without --namespace
// (RESOLUTIONS "A2S capabilities").
const DefaultNamespace = "default"

// Entry is one published version of a capability. Its JSON form is the
// registry's HTTP answer (GET /api/v1/a2s/registry/{NS/ID...}), which remote
// registries are read in as well:
//
//	{"namespace": "core/weather", "id": "WeatherCapability", "version": "1.4.2",
//	 "checksum": "sha256:<hex>", "type": "atomic", "level": "basic",
//	 "audit_status": "audited", "description": "...",
//	 "published_at": "2026-01-02T03:04:05.123456Z", "published_by": "acct_1",
//	 "format": "yaml", "document": "<the document as published, as text>",
//	 "versions": 3}
//
// document is left out when empty (lists); versions is set by List only.
type Entry struct {
	Namespace   string    `json:"namespace"`
	ID          string    `json:"id"`
	Version     string    `json:"version"`
	Checksum    string    `json:"checksum"`
	Type        string    `json:"type,omitempty"`
	Level       string    `json:"level,omitempty"`
	AuditStatus string    `json:"audit_status,omitempty"`
	Description string    `json:"description,omitempty"`
	PublishedAt time.Time `json:"published_at,omitzero"`
	PublishedBy string    `json:"published_by,omitempty"`
	// Document is the document as published. Documents are UTF-8 text (the
	// codec refuses anything else), so JSON carries it as a string, not
	// base64.
	Document []byte `json:"-"`
	Format   string `json:"format"`
	// Versions counts the capability's versions (List only).
	Versions int `json:"versions,omitempty"`
}

// Ref is NS/ID@VERSION.
func (e Entry) Ref() string { return e.Namespace + "/" + e.ID + "@" + e.Version }

// WithoutDocument returns e without its document (for answers that only
// confirm a publish).
func (e Entry) WithoutDocument() Entry { e.Document = nil; return e }

// plainEntry has Entry's fields without its methods, so the JSON methods do
// not recurse.
type plainEntry Entry

// MarshalJSON writes the document as a string.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		plainEntry
		Document string `json:"document,omitempty"`
	}{plainEntry(e), string(e.Document)})
}

// UnmarshalJSON reads the document from a string.
func (e *Entry) UnmarshalJSON(b []byte) error {
	var w struct {
		plainEntry
		Document *string `json:"document"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Entry(w.plainEntry)
	e.Document = nil
	if w.Document != nil {
		e.Document = []byte(*w.Document)
	}
	return nil
}

// PublishRequest is the body of POST /api/v1/a2s/registry: the document as
// text, the namespace to publish it in ("" is DefaultNamespace) and the
// file's base name (it decides YAML or JSON by extension and names the file
// in diagnostics).
type PublishRequest struct {
	Namespace string `json:"namespace,omitempty"`
	Document  string `json:"document"`
	File      string `json:"file,omitempty"`
}

// SplitPath reads the rest of a registry path, NS/ID ("core/weather/Weather":
// namespace core/weather, id Weather); a path of one segment is in
// DefaultNamespace. Both parts are checked.
func SplitPath(p string) (namespace, id string, err error) {
	p = strings.Trim(p, "/")
	namespace, id = DefaultNamespace, p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		namespace, id = p[:i], p[i+1:]
	}
	if err := store.CheckCapabilityNamespace("namespace", namespace); err != nil {
		return "", "", err
	}
	if err := store.CheckCapabilityID("id", id); err != nil {
		return "", "", err
	}
	return namespace, id, nil
}

func entryOf(v store.CapabilityVersion) Entry {
	return Entry{Namespace: v.Namespace, ID: v.ID, Version: v.Version, Checksum: v.Checksum, Type: v.Type, Level: v.Level,
		AuditStatus: v.AuditStatus, Description: v.Description, PublishedAt: v.PublishedAt, PublishedBy: v.PublishedBy,
		Document: v.Document, Format: v.Format}
}

// inDependency prefixes err's public message with the dependency it concerns;
// errors that are not faults (a cancelled context) are returned as they are.
func inDependency(name string, err error) error {
	fe, ok := fault.As(err)
	if !ok {
		return err
	}
	cp := *fe
	cp.Message = "dependency " + name + ": " + fe.Message
	return &cp
}
