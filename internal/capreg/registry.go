// Package capreg is the A2S capability registry (specs/a2s-capabilities.md
// "Dependencies and Registries", RESOLUTIONS "A2S capabilities"): documents
// are published into a namespace (`sluice cap publish FILE --namespace NS`)
// only when they lint clean and carry a checksum that verifies; every
// version is kept and never changes; capabilities are addressed NS/ID and
// found by npm-style version constraints. The registry also resolves the
// dependencies of a document, from itself or from a remote sluice registry
// the document names under registries, and verifies every document it hands
// out by its checksum.
package capreg

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/Masterminds/semver/v3"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// Defaults of Options.
const (
	DefaultRemoteTimeout = 30 * time.Second
	DefaultCacheSize     = 256
)

// Options configure a Registry.
type Options struct {
	Store store.Capabilities
	// Client reaches remote registries; it should be the egress client, so
	// the server's egress rules apply. nil: remote registries are refused.
	Client *http.Client
	Logger *slog.Logger
	// MaxDocumentBytes bounds a published or fetched document (0 or more than
	// store.MaxCapabilityDocumentBytes: that bound, 1 MiB).
	MaxDocumentBytes int64
	// RemoteTimeout bounds one request to a remote registry (default 30 s).
	RemoteTimeout time.Duration
	// CacheSize is how many parsed documents are kept (default 256).
	CacheSize int
}

// Registry publishes and finds capabilities. It is safe for concurrent use.
type Registry struct {
	st      store.Capabilities
	client  *http.Client
	log     *slog.Logger
	maxDoc  int64
	timeout time.Duration
	cache   *docCache
}

// New makes a Registry.
func New(o Options) *Registry {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxDocumentBytes <= 0 || o.MaxDocumentBytes > store.MaxCapabilityDocumentBytes {
		o.MaxDocumentBytes = store.MaxCapabilityDocumentBytes
	}
	if o.RemoteTimeout <= 0 {
		o.RemoteTimeout = DefaultRemoteTimeout
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	return &Registry{st: o.Store, client: o.Client, log: o.Logger, maxDoc: o.MaxDocumentBytes,
		timeout: o.RemoteTimeout, cache: newDocCache(o.CacheSize)}
}

// Publish lints data and stores it as a version of namespace/ID ("" is
// DefaultNamespace). The document must lint without errors (the
// diagnostics, warnings included, are returned either way; refused, the
// error is Invalid and names the first), carry a checksum that verifies and
// a semantic version. Publishing a version again with the same checksum
// returns the stored entry; with another checksum it is a Conflict. file
// names the document in diagnostics and picks YAML or JSON by extension
// (content sniffing otherwise). publisher is the account id ("" unknown).
func (r *Registry) Publish(ctx context.Context, data []byte, file, namespace, publisher string) (Entry, []a2s.Diagnostic, error) {
	if int64(len(data)) > r.maxDoc {
		return Entry{}, nil, fault.New(fault.TooLarge, "document: is %d bytes, over the limit of %d", len(data), r.maxDoc).
			WithDetail("field", "document")
	}
	if namespace == "" {
		namespace = DefaultNamespace
	}
	if err := store.CheckCapabilityNamespace("namespace", namespace); err != nil {
		return Entry{}, nil, err
	}
	format := formatOf(file, data)
	doc, diags := a2s.LintBytes(data, a2s.Options{File: file, Format: format, Limits: a2s.Limits{MaxBytes: int(r.maxDoc)}})
	if a2s.HasErrors(diags) {
		return Entry{}, diags, lintRefusal(diags)
	}
	if !doc.Checksum.Set() {
		sum, _ := doc.ComputeChecksum()
		return Entry{}, diags, fault.Typed(fault.Invalid, fault.ValidationError,
			"%s: the document carries no checksum; a published document must", displayName(file)).At(1, "checksum").
			WithDetail("field", "checksum").
			WithSuggestions(fmt.Sprintf("Add `checksum: %q` (`sluice cap checksum FILE` computes it)", sum))
	}
	if err := doc.Verify(); err != nil {
		return Entry{}, diags, fault.Typed(fault.Invalid, fault.ValidationError, "%s: checksum: %v", displayName(file), err).
			At(doc.Checksum.Pos.Line, "checksum").WithDetail("field", "checksum")
	}
	sum, err := doc.ComputeChecksum()
	if err != nil {
		return Entry{}, diags, fault.New(fault.Invalid, "%s: the checksum cannot be computed: %v", displayName(file), err)
	}
	if err := store.CheckCapabilityID("id", doc.ID.Value); err != nil {
		return Entry{}, diags, err
	}
	if err := store.CheckCapabilityVersion("version", doc.Version.Value); err != nil {
		return Entry{}, diags, err
	}
	v := store.CapabilityVersion{Namespace: namespace, ID: doc.ID.Value, Version: doc.Version.Value, Checksum: sum,
		Type: doc.Type.Value, Description: summary(doc.Description.Value), Document: data, PublishedBy: publisher,
		Format: store.CapabilityYAML}
	if format == a2s.FormatJSON {
		v.Format = store.CapabilityJSON
	}
	if doc.Permissions != nil {
		v.Level = doc.Permissions.Level.Value
	}
	if doc.Audit != nil {
		v.AuditStatus = doc.Audit.Status.Value
	}
	stored, created, err := r.st.PublishCapability(ctx, v)
	if err != nil {
		return Entry{}, diags, err
	}
	if created {
		r.cache.put(sum, doc)
		r.log.Info("capability published", "ref", stored.Ref(), "checksum", sum, "publisher", publisher)
	} else {
		r.log.Debug("capability published again, unchanged", "ref", stored.Ref(), "checksum", sum)
	}
	return entryOf(stored), diags, nil
}

// lintRefusal is the Invalid error of a document with lint errors: it names
// the first and carries them all (details.diagnostics).
func lintRefusal(diags []a2s.Diagnostic) error {
	var first a2s.Diagnostic
	n := 0
	for _, d := range diags {
		if d.Severity == a2s.SeverityError {
			if n == 0 {
				first = d
			}
			n++
		}
	}
	msg := first.String()
	if n > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", n-1)
	}
	return fault.Typed(fault.Invalid, fault.ValidationError, "the document does not lint clean: %s", msg).
		At(first.Line, first.Path).WithDetail("diagnostics", diags).WithDetail("errors", n).
		WithSuggestions("Run `sluice cap lint FILE` and fix the errors before publishing")
}

func displayName(file string) string {
	if file == "" {
		return "<input>"
	}
	return file
}

// formatOf is YAML or JSON by the file's extension, else by content (a
// document starting with '{' is JSON), as the codec decides.
func formatOf(file string, data []byte) a2s.Format {
	if f := a2s.FormatOf(file); f != a2s.FormatAuto {
		return f
	}
	if t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf"); len(t) > 0 && t[0] == '{' {
		return a2s.FormatJSON
	}
	return a2s.FormatYAML
}

// summary is the description as a list shows it: control characters other
// than line breaks and tabs dropped, cut to the store's bound on a
// character boundary (the document keeps the whole text).
func summary(s string) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return -1
		}
		return r
	}, s))
	const max = store.MaxCapabilityDescriptionBytes
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Get returns namespace/id ("" namespace: DefaultNamespace) at the highest
// version meeting constraint, an npm-style range; "" (or "latest") is the
// latest: the highest release, or the highest prerelease while there is no
// release. NotFound says which versions exist.
func (r *Registry) Get(ctx context.Context, namespace, id, constraint string) (Entry, error) {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	if err := checkRef(namespace, id); err != nil {
		return Entry{}, err
	}
	versions, err := r.st.ListCapabilityVersions(ctx, namespace, id)
	if err != nil {
		return Entry{}, err
	}
	if len(versions) == 0 {
		return Entry{}, fault.New(fault.NotFound, "capability %s/%s is not in the registry", namespace, id).
			WithDetail("namespace", namespace).WithDetail("id", id)
	}
	best, err := pick(versions, constraint)
	if err != nil {
		return Entry{}, err
	}
	v, err := r.st.GetCapabilityVersion(ctx, namespace, id, best)
	if err != nil {
		return Entry{}, err
	}
	return entryOf(v), nil
}

// pick chooses the version of vs that constraint selects.
func pick(vs []store.CapabilityVersion, constraint string) (string, error) {
	constraint = strings.TrimSpace(constraint)
	if constraint == "" || constraint == "latest" {
		latest := ""
		for _, v := range vs {
			if store.LaterVersion(latest, v.Version) {
				latest = v.Version
			}
		}
		return latest, nil
	}
	c, err := a2s.ParseConstraint(constraint)
	if err != nil {
		return "", fault.New(fault.Invalid, "version: %v", err).WithDetail("field", "version").
			WithSuggestions("Use an npm-style range such as ^1.2.0, ~1.2, >=1 <2 or an exact version")
	}
	var best *semver.Version
	for _, v := range vs {
		sv, err := semver.StrictNewVersion(v.Version)
		if err != nil || !c.Check(sv) {
			continue
		}
		if best == nil || sv.GreaterThan(best) {
			best = sv
		}
	}
	if best == nil {
		ns, id := vs[0].Namespace, vs[0].ID
		return "", fault.New(fault.NotFound, "no version of %s/%s satisfies %q; published: %s", ns, id, constraint, versionList(vs)).
			WithDetail("namespace", ns).WithDetail("id", id)
	}
	return best.Original(), nil
}

// versionList names the published versions in semantic order, the highest
// 20 when there are more.
func versionList(vs []store.CapabilityVersion) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Version
	}
	slices.SortFunc(names, compareVersions)
	const show = 20
	if len(names) > show {
		return fmt.Sprintf("%d versions, the highest %s", len(names), strings.Join(names[len(names)-show:], ", "))
	}
	return strings.Join(names, ", ")
}

// compareVersions orders by semantic version (invalid text, which the store
// never holds, last by bytes).
func compareVersions(a, b string) int {
	va, errA := semver.StrictNewVersion(a)
	vb, errB := semver.StrictNewVersion(b)
	switch {
	case errA == nil && errB == nil:
		return va.Compare(vb)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

// Versions lists every version of namespace/id in semantic order, lowest
// first, without documents; NotFound when there is none.
func (r *Registry) Versions(ctx context.Context, namespace, id string) ([]Entry, error) {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	if err := checkRef(namespace, id); err != nil {
		return nil, err
	}
	vs, err := r.st.ListCapabilityVersions(ctx, namespace, id)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, fault.New(fault.NotFound, "capability %s/%s is not in the registry", namespace, id).
			WithDetail("namespace", namespace).WithDetail("id", id)
	}
	out := make([]Entry, len(vs))
	for i, v := range vs {
		out[i] = entryOf(v)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return compareVersions(a.Version, b.Version) })
	return out, nil
}

// List pages through capabilities in (namespace, id) order, each as its
// latest version without document and with its count of versions.
// namespacePrefix "" lists all, else that namespace and those under it.
func (r *Registry) List(ctx context.Context, namespacePrefix string, p store.Page) ([]Entry, string, error) {
	caps, next, err := r.st.ListCapabilities(ctx, namespacePrefix, p)
	if err != nil {
		return nil, "", err
	}
	out := make([]Entry, len(caps))
	for i, c := range caps {
		out[i] = entryOf(c.Latest)
		out[i].Versions = c.Versions
	}
	return out, next, nil
}

// Parse reads an entry's document, verified: it must hash to the checksum
// it carries and to the entry's. Parsed documents are cached by checksum.
func (r *Registry) Parse(e Entry) (*a2s.Document, error) {
	return r.verified(e, "the registry's copy of "+e.Ref(), fault.Internal)
}

// Resolve is Get and Parse: the entry namespace/id meeting constraint and
// its verified document.
func (r *Registry) Resolve(ctx context.Context, namespace, id, constraint string) (Entry, *a2s.Document, error) {
	e, err := r.Get(ctx, namespace, id, constraint)
	if err != nil {
		return Entry{}, nil, err
	}
	d, err := r.Parse(e)
	if err != nil {
		return Entry{}, nil, err
	}
	return e, d, nil
}

// verified parses e's document and checks it against its checksums. origin
// names where it came from in errors; kind is the fault of a bad document
// (Internal for this registry's own copy, Upstream for a remote one).
func (r *Registry) verified(e Entry, origin string, kind fault.Kind) (*a2s.Document, error) {
	want, err := a2s.ParseChecksum(e.Checksum)
	if err != nil {
		return nil, fault.New(kind, "%s: checksum %q: %v", origin, clip(e.Checksum), err)
	}
	d := r.cache.get(want)
	if d == nil {
		if d, err = r.parseVerified(e, want, origin, kind); err != nil {
			return nil, err
		}
		r.cache.put(want, d)
	}
	if d.ID.Value != e.ID || d.Version.Value != e.Version {
		return nil, fault.New(kind, "%s is refused: the document is %s@%s", origin, clip(d.ID.Value), clip(d.Version.Value))
	}
	return d, nil
}

func (r *Registry) parseVerified(e Entry, want, origin string, kind fault.Kind) (*a2s.Document, error) {
	if len(e.Document) == 0 {
		return nil, fault.New(kind, "%s has no document", origin)
	}
	if int64(len(e.Document)) > r.maxDoc {
		return nil, fault.New(kind, "%s: the document is %d bytes, over the limit of %d", origin, len(e.Document), r.maxDoc)
	}
	format := a2s.FormatYAML
	if e.Format == store.CapabilityJSON {
		format = a2s.FormatJSON
	}
	d, err := a2s.Parse(e.Document, a2s.Options{File: e.Ref(), Format: format, Limits: a2s.Limits{MaxBytes: int(r.maxDoc)}})
	if err != nil {
		return nil, fault.New(kind, "%s cannot be read: %v", origin, err).WithCause(err)
	}
	if err := d.Verify(); err != nil {
		return nil, fault.New(kind, "%s is refused: its checksum does not verify: %v", origin, err).
			WithSuggestions("The document was changed after it was checksummed; do not run it")
	}
	got, _ := d.ComputeChecksum()
	if got[len(a2s.ChecksumPrefix):] != want {
		return nil, fault.New(kind, "%s is refused: the document hashes to %s, the entry says %s", origin, got, clip(e.Checksum))
	}
	return d, nil
}

func checkRef(namespace, id string) error {
	if err := store.CheckCapabilityNamespace("namespace", namespace); err != nil {
		return err
	}
	return store.CheckCapabilityID("id", id)
}

// clip bounds text that came from elsewhere before it goes into a message.
func clip(s string) string {
	if len(s) > 80 {
		s = strings.ToValidUTF8(s[:80], "") + "…"
	}
	return s
}
