package store

import (
	"strings"
	"unicode/utf8"

	"github.com/Masterminds/semver/v3"

	"github.com/sluicehq/sluice/internal/fault"
)

// Bounds of the capability registry. A document is at most the A2S codec's
// default limit (1 MiB, RESOLUTIONS' document limit); a capability keeps
// every version ever published, up to MaxCapabilityVersions.
const (
	MaxCapabilityDocumentBytes     = 1 << 20
	MaxCapabilityNamespaceBytes    = 128
	MaxCapabilityNamespaceSegments = 8
	MaxCapabilityIDBytes           = 128
	MaxCapabilityVersionBytes      = 128
	MaxCapabilityDescriptionBytes  = 4096
	MaxCapabilityVersions          = 10_000
)

// Capability formats.
const (
	CapabilityYAML = "yaml"
	CapabilityJSON = "json"
)

// CheckCapability checks a version before it is published. Whether the
// document is a valid A2S document hashing to Checksum is the registry's
// business (internal/capreg); the store checks shapes and bounds.
func CheckCapability(v CapabilityVersion) error {
	checks := []error{
		CheckCapabilityNamespace("namespace", v.Namespace),
		CheckCapabilityID("id", v.ID),
		CheckCapabilityVersion("version", v.Version),
		checkCapabilityChecksum(v.Checksum),
		CheckText("type", v.Type, MaxNameBytes, false),
		CheckText("level", v.Level, MaxNameBytes, false),
		CheckText("audit status", v.AuditStatus, MaxNameBytes, false),
		checkDescription(v.Description),
		CheckBytes("document", v.Document, MaxCapabilityDocumentBytes, true),
		checkCapabilityFormat(v.Format),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if v.PublishedBy != "" {
		return CheckID("published by", v.PublishedBy)
	}
	return nil
}

// CheckCapabilityNamespace refuses a namespace that is not segments of
// lower-case letters, digits, '_' and '-' joined by '/' ("core/weather"),
// within the bounds.
func CheckCapabilityNamespace(field, ns string) error {
	if ns == "" {
		return invalid(field, "is required")
	}
	if len(ns) > MaxCapabilityNamespaceBytes {
		return invalid(field, "is %d bytes long, over the limit of %d", len(ns), MaxCapabilityNamespaceBytes)
	}
	segments := 1
	for i := 0; i < len(ns); i++ {
		c := ns[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c == '-':
		case c == '/':
			if i == 0 || i == len(ns)-1 || ns[i-1] == '/' {
				return invalid(field, "%q has an empty segment at byte %d; write segments joined by single '/', e.g. core/weather", truncate(ns), i)
			}
			segments++
		default:
			return invalid(field, "holds %q at byte %d; use lower-case letters, digits, '_' and '-' in segments joined by '/'", rune(c), i).
				WithSuggestions("Namespaces look like default or core/weather")
		}
	}
	if segments > MaxCapabilityNamespaceSegments {
		return invalid(field, "has %d segments, over the limit of %d", segments, MaxCapabilityNamespaceSegments)
	}
	return nil
}

// CheckCapabilityID refuses an id outside the document id charset (letters,
// digits, '_', '.', '-'), starting with '.' or '-', or over the bound.
func CheckCapabilityID(field, id string) error {
	if id == "" {
		return invalid(field, "is required")
	}
	if len(id) > MaxCapabilityIDBytes {
		return invalid(field, "is %d bytes long, over the limit of %d", len(id), MaxCapabilityIDBytes)
	}
	if id[0] == '.' || id[0] == '-' {
		return invalid(field, "may not start with %q", id[:1])
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return invalid(field, "holds %q at byte %d; use letters, digits, '_', '.' and '-'", rune(c), i)
		}
	}
	return nil
}

// CheckCapabilityVersion refuses a version that is not a strict semantic
// version MAJOR.MINOR.PATCH[-PRERELEASE], or that carries build metadata:
// two versions differing only in +BUILD have the same precedence, so a
// constraint could not choose between them.
func CheckCapabilityVersion(field, version string) error {
	if version == "" {
		return invalid(field, "is required")
	}
	if len(version) > MaxCapabilityVersionBytes {
		return invalid(field, "is %d bytes long, over the limit of %d", len(version), MaxCapabilityVersionBytes)
	}
	v, err := semver.StrictNewVersion(version)
	if err != nil {
		return invalid(field, "%q is not a semantic version MAJOR.MINOR.PATCH", truncate(version))
	}
	if v.Metadata() != "" {
		return invalid(field, "%q carries build metadata (+%s); publish versions without it", truncate(version), truncate(v.Metadata()))
	}
	return nil
}

// CheckCapabilityPrefix checks a namespace prefix of ListCapabilities and
// returns it without a trailing '/' ("" lists everything).
func CheckCapabilityPrefix(prefix string) (string, error) {
	p := strings.TrimSuffix(prefix, "/")
	if p == "" {
		return "", nil
	}
	return p, CheckCapabilityNamespace("namespace prefix", p)
}

func checkCapabilityChecksum(sum string) error {
	const prefix = "sha256:"
	hex, ok := strings.CutPrefix(sum, prefix)
	if sum == "" {
		return invalid("checksum", "is required")
	}
	if !ok || len(hex) != 64 || strings.IndexFunc(hex, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') }) >= 0 {
		return invalid("checksum", "is not sha256:<64 lower-case hex digits>")
	}
	return nil
}

func checkCapabilityFormat(f string) error {
	if f != CapabilityYAML && f != CapabilityJSON {
		return invalid("format", "%q is not yaml or json", truncate(f))
	}
	return nil
}

// checkDescription is CheckText that allows line breaks and tabs: document
// descriptions are often YAML block text.
func checkDescription(s string) error {
	if len(s) > MaxCapabilityDescriptionBytes {
		return invalid("description", "is %d bytes long, over the limit of %d", len(s), MaxCapabilityDescriptionBytes)
	}
	if !utf8.ValidString(s) {
		return invalid("description", "is not valid UTF-8")
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return (r < 0x20 && r != '\n' && r != '\r' && r != '\t') || r == 0x7f }); i >= 0 {
		return invalid("description", "holds a control character at byte %d", i)
	}
	return nil
}

// CapabilityImmutable is the error for publishing a version again with
// another checksum.
func CapabilityImmutable(v CapabilityVersion, stored string) *fault.Error {
	return fault.New(fault.Conflict, "%s is already published with checksum %s; versions are immutable; publish a new version", v.Ref(), stored).
		WithDetail("namespace", v.Namespace).WithDetail("id", v.ID).WithDetail("version", v.Version).
		WithSuggestions("Raise the version in the document, recompute its checksum and publish again")
}

// CapabilityVersionsFull is the error when a capability holds all the
// versions it may.
func CapabilityVersionsFull(namespace, id string) *fault.Error {
	return fault.New(fault.Invalid, "%s/%s has reached the limit of %d versions", namespace, id, MaxCapabilityVersions).
		WithDetail("namespace", namespace).WithDetail("id", id)
}

// CapabilityVersionNotFound is the error for a version that is not published.
func CapabilityVersionNotFound(namespace, id, version string) *fault.Error {
	return fault.New(fault.NotFound, "capability %s/%s has no version %q", namespace, id, truncate(version)).
		WithDetail("namespace", namespace).WithDetail("id", id)
}
