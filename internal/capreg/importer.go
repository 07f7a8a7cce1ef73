package capreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// RegistryPath is where a sluice server answers registry reads; a remote
// registry URL is the server's base URL.
const RegistryPath = "/api/v1/a2s/registry/"

// maxErrorBody bounds what is read of a remote registry's refusal.
const maxErrorBody = 64 << 10

// Importer resolves the dependencies of doc for capability tasks
// (capability.Options.Imports). A dependency without registry comes from
// this registry (namespace "" is DefaultNamespace, version the constraint);
// one with registry: registries.NAME (or NAME) from the sluice registry at
// the URL doc declares under that name. Every document is verified by its
// own checksum, and must equal the dependency's checksum when it pins one
// (sha256:<hex> or bare hex).
func (r *Registry) Importer(doc *a2s.Document) capability.Importer {
	return &importer{r: r, doc: doc}
}

type importer struct {
	r   *Registry
	doc *a2s.Document
}

func (im *importer) Import(ctx context.Context, dep *a2s.Dependency) (*a2s.Document, error) {
	if dep == nil {
		return nil, fault.New(fault.Invalid, "no dependency to import")
	}
	e, d, err := im.resolve(ctx, dep)
	if err != nil {
		return nil, inDependency(dep.Name, err)
	}
	if dep.Checksum.Value != "" {
		pin, err := a2s.ParseChecksum(dep.Checksum.Value)
		if err != nil {
			return nil, fault.Typed(fault.Invalid, fault.ValidationError, "dependency %s: checksum %q: %v", dep.Name, clip(dep.Checksum.Value), err).
				At(dep.Checksum.Pos.Line, "dependencies."+dep.Name+".checksum")
		}
		if got := strings.TrimPrefix(e.Checksum, a2s.ChecksumPrefix); got != pin {
			return nil, fault.Typed(fault.Invalid, fault.ValidationError,
				"dependency %s pins checksum sha256:%s, but %s resolved to %s, whose checksum is %s; refused",
				dep.Name, pin, dependencyRef(dep), e.Ref(), e.Checksum).
				At(dep.Checksum.Pos.Line, "dependencies."+dep.Name+".checksum").
				WithSuggestions("Pin the exact version the checksum was taken from, or update the checksum after reviewing the new version")
		}
	}
	return d, nil
}

func (im *importer) resolve(ctx context.Context, dep *a2s.Dependency) (Entry, *a2s.Document, error) {
	ns := dep.Namespace.Value
	if ns == "" {
		ns = DefaultNamespace
	}
	if dep.ID.Value == "" {
		return Entry{}, nil, fault.New(fault.Invalid, "no id to import")
	}
	if err := checkRef(ns, dep.ID.Value); err != nil {
		return Entry{}, nil, err
	}
	name := strings.TrimPrefix(dep.Registry.Value, "registries.")
	if name == "" {
		return im.r.Resolve(ctx, ns, dep.ID.Value, dep.Version.Value)
	}
	for _, reg := range im.doc.Registries {
		if reg.Name == name {
			return im.r.remote(ctx, name, reg.URL.Value, ns, dep.ID.Value, dep.Version.Value)
		}
	}
	var declared []string
	for _, reg := range im.doc.Registries {
		declared = append(declared, reg.Name)
	}
	return Entry{}, nil, fault.Typed(fault.Invalid, fault.ValidationError, "registry %q is not declared under registries (declared: %s)",
		clip(dep.Registry.Value), strings.Join(declared, ", ")).At(dep.Registry.Pos.Line, "dependencies."+dep.Name+".registry")
}

func dependencyRef(dep *a2s.Dependency) string {
	ns := dep.Namespace.Value
	if ns == "" {
		ns = DefaultNamespace
	}
	ref := ns + "/" + dep.ID.Value
	if dep.Version.Value != "" {
		ref += " " + dep.Version.Value
	}
	return ref
}

// remote reads namespace/id at constraint from the sluice registry at base:
// GET {base}/api/v1/a2s/registry/{ns}/{id}?version={constraint}, answered
// with an Entry. Reads are public: no key is sent, so no account's key ever
// reaches a registry a document names. The answer is bounded in size and
// time and must be the capability asked for, at a version meeting the
// constraint, with a document that verifies.
func (r *Registry) remote(ctx context.Context, name, base, ns, id, constraint string) (Entry, *a2s.Document, error) {
	if r.client == nil {
		return Entry{}, nil, fault.New(fault.PermissionDenied, "registry %s: this server does not reach remote registries", name).
			WithSuggestions("Publish the dependency to this server's registry and drop its registry field")
	}
	u, err := registryURL(base, ns, id, constraint)
	if err != nil {
		return Entry{}, nil, fault.New(fault.Invalid, "registry %s: %v", name, err)
	}
	where := fmt.Sprintf("registry %s (%s)", name, u.Host)
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Entry{}, nil, fault.New(fault.Invalid, "%s: %v", where, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		if fe, ok := fault.As(err); ok {
			return Entry{}, nil, fe
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return Entry{}, nil, fault.New(fault.Timeout, "%s did not answer within %s", where, r.timeout).WithCause(err)
		}
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return Entry{}, nil, err
		}
		return Entry{}, nil, fault.New(fault.Upstream, "%s cannot be reached", where).WithCause(err).Retry(0)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Entry{}, nil, remoteRefusal(where, resp)
	}
	// JSON may escape a character of the document in six ('<' is \u003c).
	limit := 6*r.maxDoc + 64<<10
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return Entry{}, nil, fault.New(fault.Upstream, "%s: the answer cannot be read", where).WithCause(err)
	}
	if int64(len(body)) > limit {
		return Entry{}, nil, fault.New(fault.Upstream, "%s answered more than %d bytes", where, limit)
	}
	e, err := DecodeEntry(body)
	if err != nil {
		return Entry{}, nil, fault.New(fault.Upstream, "%s: %v", where, err)
	}
	if e.Namespace != ns || e.ID != id {
		return Entry{}, nil, fault.New(fault.Upstream, "%s answered %s/%s for %s/%s", where, e.Namespace, e.ID, ns, id)
	}
	if constraint != "" && constraint != "latest" {
		c, err := a2s.ParseConstraint(constraint)
		if err != nil {
			return Entry{}, nil, fault.New(fault.Invalid, "version: %v", err)
		}
		if ok, _ := c.CheckString(e.Version); !ok {
			return Entry{}, nil, fault.New(fault.Upstream, "%s answered version %s, which does not satisfy %q", where, e.Version, constraint)
		}
	}
	d, err := r.verified(e, where+": "+e.Ref(), fault.Upstream)
	if err != nil {
		return Entry{}, nil, err
	}
	r.log.Debug("dependency fetched from a remote registry", "registry", name, "host", u.Host, "ref", e.Ref(), "checksum", e.Checksum)
	return e, d, nil
}

// registryURL builds the read URL of namespace/id from a registry's base
// URL: http or https, a host, no user info (it would be a secret in every
// message), no query or fragment.
func registryURL(base, ns, id, constraint string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return nil, fmt.Errorf("URL %q cannot be read", clip(base))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("URL %q is not http or https", clip(base))
	case u.Host == "":
		return nil, fmt.Errorf("URL %q has no host", clip(base))
	case u.User != nil:
		return nil, errors.New("the URL carries user information; registries are read without credentials")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("URL %q has a query or fragment", clip(base))
	}
	// Namespaces and ids hold only URL-safe characters (store checks).
	u.Path = strings.TrimRight(u.Path, "/") + RegistryPath + ns + "/" + id
	u.RawPath = ""
	if constraint != "" {
		u.RawQuery = url.Values{"version": {constraint}}.Encode()
	}
	return u, nil
}

// remoteRefusal turns an answer other than 200 into a fault: 404 stays
// NotFound, anything else is Upstream; the remote's own message (from the
// error object, bounded) is kept.
func remoteRefusal(where string, resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := ""
	if json.Unmarshal(raw, &body) == nil {
		// The remote's words go into messages and logs: one line, bounded.
		msg = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(body.Error.Message, ""))
		if len(msg) > 400 {
			msg = strings.ToValidUTF8(msg[:400], "") + "…"
		}
	}
	kind := fault.Upstream
	if resp.StatusCode == http.StatusNotFound {
		kind = fault.NotFound
	}
	var fe *fault.Error
	if msg == "" {
		fe = fault.New(kind, "%s answered HTTP %d", where, resp.StatusCode)
	} else {
		fe = fault.New(kind, "%s answered HTTP %d: %s", where, resp.StatusCode, msg)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		// Dependencies are read without a key; a sluice server answers them
		// only with a2s.public_registry on.
		fe.WithSuggestions("The remote registry must allow public reads (a2s.public_registry: true on a sluice server)")
	}
	return fe
}

// DecodeEntry reads a registry answer: one Entry with a document. It checks
// the shapes a store would (namespace, id, version, format, bounds), not the
// document, which verified reads.
func DecodeEntry(body []byte) (Entry, error) {
	var e Entry
	if err := json.Unmarshal(body, &e); err != nil {
		return Entry{}, fmt.Errorf("the answer is not a registry entry: %v", err)
	}
	if len(e.Document) == 0 {
		return Entry{}, errors.New("the answer carries no document")
	}
	v := store.CapabilityVersion{Namespace: e.Namespace, ID: e.ID, Version: e.Version, Checksum: e.Checksum,
		Type: e.Type, Level: e.Level, AuditStatus: e.AuditStatus, Description: e.Description,
		Document: e.Document, Format: e.Format}
	if h, err := a2s.ParseChecksum(e.Checksum); err == nil {
		// Bare hex and upper case are accepted from a remote, and
		// normalized to sha256:<lower hex>.
		e.Checksum = a2s.ChecksumPrefix + h
		v.Checksum = e.Checksum
	}
	if err := store.CheckCapability(v); err != nil {
		return Entry{}, fmt.Errorf("the answer is not a valid registry entry: %v", err)
	}
	return e, nil
}
