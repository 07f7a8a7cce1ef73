package store

import (
	"context"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// CapabilityVersion is one published version of an A2S capability document
// (internal/capreg). Capabilities are addressed NS/ID: documents carry no
// namespace, the publisher gives it (RESOLUTIONS "A2S capabilities"). The
// metadata fields are copied out of the document at publish time so lists
// need not parse documents.
type CapabilityVersion struct {
	Namespace string // segments of [a-z0-9_-] joined by '/', e.g. core/weather
	ID        string // the document's id
	Version   string // semantic version, without build metadata
	Checksum  string // sha256:<64 lower-case hex>
	// Type, Level (the permission level) and AuditStatus are the document's
	// values as written; Description its description (bounded by the
	// registry).
	Type        string
	Level       string
	AuditStatus string
	Description string
	Document    []byte // the document as published; empty in lists
	Format      string // "yaml" or "json"
	PublishedBy string // the publishing account's id ("" when unknown)
	PublishedAt time.Time
}

// Ref is NS/ID@VERSION, for messages.
func (v CapabilityVersion) Ref() string { return v.Namespace + "/" + v.ID + "@" + v.Version }

// CapabilitySummary is one capability of a list: how many versions it has and
// its latest (see LaterVersion), without the document.
type CapabilitySummary struct {
	Namespace string
	ID        string
	Versions  int
	Latest    CapabilityVersion
}

// Capabilities is the A2S capability registry's storage. Every version ever
// published is kept; a version never changes once published.
type Capabilities interface {
	// PublishCapability stores a version; PublishedAt is set by the store.
	// When NS/ID already has this version with the same checksum, nothing is
	// stored and the stored version is returned with created false
	// (publishing is idempotent); with another checksum it is a Conflict
	// (versions are immutable). A capability holds at most
	// MaxCapabilityVersions versions. The check and the insert are one
	// atomic step.
	PublishCapability(ctx context.Context, v CapabilityVersion) (stored CapabilityVersion, created bool, err error)
	// GetCapabilityVersion returns one version with its document; NotFound
	// when NS/ID has no such version.
	GetCapabilityVersion(ctx context.Context, namespace, id, version string) (CapabilityVersion, error)
	// ListCapabilityVersions returns every version of NS/ID without
	// documents, in publish order (oldest first); none is an empty list, not
	// an error. Callers that want semantic-version order sort.
	ListCapabilityVersions(ctx context.Context, namespace, id string) ([]CapabilityVersion, error)
	// ListCapabilities pages through capabilities in (namespace, id) order
	// with their latest version (without document) and their count of
	// versions. namespacePrefix "" lists all; otherwise the namespace itself
	// and those under it ("core" lists core and core/weather, not corex).
	ListCapabilities(ctx context.Context, namespacePrefix string, p Page) (caps []CapabilitySummary, next string, err error)
}

// LaterVersion reports whether candidate should replace current as a
// capability's latest version: a release beats a prerelease, otherwise the
// higher semantic version wins. So "the latest" is the highest release, or
// the highest prerelease while there is no release (npm's "*" also skips
// prereleases). Both are versions CheckCapabilityVersion accepted; current ""
// is replaced by anything.
func LaterVersion(current, candidate string) bool {
	if current == "" {
		return true
	}
	c, err1 := semver.StrictNewVersion(current)
	n, err2 := semver.StrictNewVersion(candidate)
	if err1 != nil || err2 != nil {
		return err1 != nil && err2 == nil
	}
	cPre, nPre := c.Prerelease() != "", n.Prerelease() != ""
	if cPre != nPre {
		return cPre
	}
	return n.GreaterThan(c)
}

// CapabilityCursor is the cursor after NS/ID in ListCapabilities. Ids hold
// no '/', so the last '/' separates the two.
func CapabilityCursor(namespace, id string) string { return namespace + "/" + id }

// ParseCapabilityCursor reads a CapabilityCursor; "" is the start ("", "").
func ParseCapabilityCursor(c string) (namespace, id string, err error) {
	if c == "" {
		return "", "", nil
	}
	i := strings.LastIndexByte(c, '/')
	if i < 0 {
		return "", "", BadCursor()
	}
	namespace, id = c[:i], c[i+1:]
	if CheckCapabilityNamespace("cursor", namespace) != nil || CheckCapabilityID("cursor", id) != nil {
		return "", "", BadCursor()
	}
	return namespace, id, nil
}
