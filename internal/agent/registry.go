package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// Vault is what the registry needs of the server's vault (vault.Sealed):
// resolving references, storing the values it takes in, and deleting them
// when an agent goes.
type Vault interface {
	Resolve(ctx context.Context, id string) (op.Secret, error)
	Put(ctx context.Context, e vault.Entry) (vault.Metadata, error)
	Delete(ctx context.Context, id string) error
}

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	Store store.Agents
	Vault Vault
	// Egress is the server's rule (config egress.allow_private).
	Egress egress.Policy
	// ACP is the allowlist of ACP agent programs and the bounds of their
	// processes (config agents.acp): an entry of protocol acp must name one
	// of its commands.
	ACP config.ACP
	// CacheTTL is how long an entry read from the store is used without
	// reading it again (0: 5 s; negative: no cache). Changes made through
	// this Registry are seen at once; those of another process after at
	// most CacheTTL.
	CacheTTL time.Duration
	Clock    clock.Clock  // nil: the real clock
	Logger   *slog.Logger // nil: discard
}

// Registry is the agent registry. It is safe for concurrent use.
type Registry struct {
	o RegistryOptions

	// writes serialises Register and Remove in this process, so the vault
	// entries of one registration are never deleted by a concurrent one.
	writes sync.Mutex

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	entry agenthttp.Entry
	at    time.Time
}

// NewRegistry makes a Registry.
func NewRegistry(o RegistryOptions) *Registry {
	if o.CacheTTL == 0 {
		o.CacheTTL = 5 * time.Second
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Registry{o: o, cache: map[string]cached{}}
}

// Egress is the egress rule the registry checks URLs against.
func (r *Registry) Egress() egress.Policy { return r.o.Egress }

// Register checks e (fields, URL under the egress rule, vault references
// that resolve), moves its plain secrets into the vault, and stores it,
// replacing an entry of the same name (created says which). It returns
// the stored entry, every secret a credentialRef. Vault entries the
// registry made for a replaced entry are deleted.
func (r *Registry) Register(ctx context.Context, e agenthttp.Entry) (agenthttp.Entry, bool, error) {
	if err := e.Validate(); err != nil {
		return agenthttp.Entry{}, false, invalidEntry(err)
	}
	e = e.Clone()
	if e.Protocol == agenthttp.ProtocolACP {
		if _, fe := acpRunOf(r.o.ACP.Commands, e); fe != nil {
			return agenthttp.Entry{}, false, fe
		}
	} else if err := r.CheckURL(e.URL); err != nil {
		return agenthttp.Entry{}, false, err
	}
	for _, f := range e.Secrets() {
		if !f.Secret.IsRef() {
			continue
		}
		sec, err := r.o.Vault.Resolve(ctx, f.Secret.Ref())
		if err != nil {
			fe := fault.From(err)
			return agenthttp.Entry{}, false, fault.New(fault.Invalid, "agent entry: field %s: vault credential %q cannot be used: %s",
				f.Path, f.Secret.Ref(), fe.Message).WithDetail("field", f.Path).WithCause(err).
				WithSuggestions("Store the credential first (sluice vault put), or give the value and let the registry store it")
		}
		if fe := checkBinding(f.Secret.Ref(), sec, e.URL); fe != nil {
			return agenthttp.Entry{}, false, fe.WithDetail("field", f.Path)
		}
	}

	r.writes.Lock()
	defer r.writes.Unlock()
	var old *agenthttp.Entry
	if a, err := r.o.Store.GetAgent(ctx, e.Name); err == nil {
		if prev, err := agenthttp.DecodeEntry(a.Entry, agenthttp.Limits{MaxBytes: store.MaxAgentEntryBytes}); err == nil {
			old = &prev
		}
	} else if fault.KindOf(err) != fault.NotFound {
		return agenthttp.Entry{}, false, err
	}

	var made []string
	undo := func() {
		for _, id := range made {
			if err := r.o.Vault.Delete(context.WithoutCancel(ctx), id); err != nil {
				r.o.Logger.Warn("agent registry: a vault entry of a failed registration was left", "agent", e.Name, "credentialId", id, "err", err)
			}
		}
	}
	for _, f := range e.Secrets() {
		if f.Secret.IsRef() {
			continue
		}
		id := managedID(e.Name, f)
		typ := "header-value"
		switch f.Path {
		case "auth_config.token":
			typ = "bearer-token"
		case "auth_config.key":
			typ = "api-key"
		}
		// Bound to the agent's endpoint: the value was given for it alone.
		if _, err := r.o.Vault.Put(ctx, vault.Entry{ID: id, Type: typ, Description: "agent " + e.Name + ": " + f.Path,
			Hosts: bindingOf(e.URL), Value: vault.NewPlaintext(f.Secret.Reveal())}); err != nil {
			undo()
			return agenthttp.Entry{}, false, err
		}
		made = append(made, id)
		e.SetSecret(f.Path, agenthttp.SecretRef(id))
	}
	b, err := json.Marshal(e)
	if err != nil { // a plain secret left: a defect, never a value in the message
		undo()
		return agenthttp.Entry{}, false, fault.New(fault.Internal, "agent %q could not be encoded", e.Name).WithCause(err)
	}
	_, created, err := r.o.Store.PutAgent(ctx, store.Agent{Name: e.Name, Entry: b})
	if err != nil {
		undo()
		return agenthttp.Entry{}, false, err
	}
	if old != nil {
		r.dropManaged(ctx, *old, &e)
	}
	r.remember(e)
	r.o.Logger.Info("agent registered", "agent", e.Name, "created", created, "secretsMoved", len(made))
	return e, created, nil
}

// managedID is the vault id for a secret the registry takes in:
// agent.<name>.<field>.<random>. It names the field, never the value; the
// random part keeps a replaced registration's entry apart from the new one
// until the store has the new entry.
func managedID(name string, f agenthttp.SecretField) string {
	field := "token"
	switch {
	case f.Path == "auth_config.key":
		field = "key"
	case f.Path != "auth_config.token":
		h := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
				return r
			}
			return '_'
		}, strings.ToLower(f.Header))
		field = "header-" + h[:min(len(h), 32)]
	}
	return managedPrefix(name) + field + "." + ids.New(ids.Tail)
}

// managedPrefix starts the vault ids the registry owns for agent name.
// Names hold no '.', so no agent's prefix is another's.
func managedPrefix(name string) string { return "agent." + name + "." }

// dropManaged deletes the vault entries the registry made for old that the
// new entry (nil: none) no longer refers to.
func (r *Registry) dropManaged(ctx context.Context, old agenthttp.Entry, now *agenthttp.Entry) {
	keep := map[string]bool{}
	if now != nil {
		for _, f := range now.Secrets() {
			keep[f.Secret.Ref()] = true
		}
	}
	for _, f := range old.Secrets() {
		id := f.Secret.Ref()
		if id == "" || keep[id] || !strings.HasPrefix(id, managedPrefix(old.Name)) {
			continue
		}
		if err := r.o.Vault.Delete(context.WithoutCancel(ctx), id); err != nil && fault.KindOf(err) != fault.NotFound {
			r.o.Logger.Warn("agent registry: a vault entry no longer used was left", "agent", old.Name, "credentialId", id, "err", err)
		}
	}
}

// Get returns an agent's entry (secrets as references). An unknown name is
// NotFound.
func (r *Registry) Get(ctx context.Context, name string) (agenthttp.Entry, error) {
	if err := agenthttp.CheckName("agent", name); err != nil {
		return agenthttp.Entry{}, invalidEntry(err)
	}
	if r.o.CacheTTL > 0 {
		r.mu.Lock()
		c, ok := r.cache[name]
		r.mu.Unlock()
		if ok && r.o.Clock.Now().Sub(c.at) < r.o.CacheTTL {
			return c.entry.Clone(), nil
		}
	}
	a, err := r.o.Store.GetAgent(ctx, name)
	if fault.KindOf(err) == fault.NotFound {
		r.forget(name)
		return agenthttp.Entry{}, notFound(name)
	}
	if err != nil {
		return agenthttp.Entry{}, err
	}
	e, err := decodeStored(a)
	if err != nil {
		return agenthttp.Entry{}, err
	}
	r.remember(e)
	return e.Clone(), nil
}

// List returns every registered entry by name.
func (r *Registry) List(ctx context.Context) ([]agenthttp.Entry, error) {
	all, err := r.o.Store.ListAgents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]agenthttp.Entry, 0, len(all))
	for _, a := range all {
		e, err := decodeStored(a)
		if err != nil {
			r.o.Logger.Error("agent registry: a stored entry does not decode; skipped", "agent", a.Name, "err", err)
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// Remove deletes an agent's entry and the vault entries the registry made
// for it. An unknown name is NotFound.
func (r *Registry) Remove(ctx context.Context, name string) error {
	if err := agenthttp.CheckName("agent", name); err != nil {
		return invalidEntry(err)
	}
	r.writes.Lock()
	defer r.writes.Unlock()
	a, err := r.o.Store.GetAgent(ctx, name)
	if fault.KindOf(err) == fault.NotFound {
		r.forget(name)
		return notFound(name)
	}
	if err != nil {
		return err
	}
	if err := r.o.Store.DeleteAgent(ctx, name); err != nil {
		if fault.KindOf(err) == fault.NotFound {
			return notFound(name)
		}
		return err
	}
	r.forget(name)
	if e, err := decodeStored(a); err == nil {
		r.dropManaged(ctx, e, nil)
	}
	r.o.Logger.Info("agent removed", "agent", name)
	return nil
}

func decodeStored(a store.Agent) (agenthttp.Entry, error) {
	e, err := agenthttp.DecodeEntry(a.Entry, agenthttp.Limits{MaxBytes: store.MaxAgentEntryBytes})
	if err != nil {
		return agenthttp.Entry{}, fault.New(fault.Internal, "the stored entry of agent %q does not decode", a.Name).WithCause(err)
	}
	return e, nil
}

func (r *Registry) remember(e agenthttp.Entry) {
	if r.o.CacheTTL <= 0 {
		return
	}
	r.mu.Lock()
	r.cache[e.Name] = cached{entry: e.Clone(), at: r.o.Clock.Now()}
	r.mu.Unlock()
}

func (r *Registry) forget(name string) {
	r.mu.Lock()
	delete(r.cache, name)
	r.mu.Unlock()
}

// CheckURL applies the server's egress rule to an agent URL as written: a
// literal private, loopback or link-local address, or localhost, is refused
// unless egress.allow_private lists it. Names that resolve to such
// addresses are refused by the egress transport when it dials.
func (r *Registry) CheckURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return fault.New(fault.Invalid, "agent entry: field url: is not a URL").WithDetail("field", "url")
	}
	host, port := u.Hostname(), egress.PortOf(u.Scheme, u.Port())
	private := false
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		private = egress.Classify(ip) != ""
	} else {
		h := strings.TrimSuffix(strings.ToLower(host), ".")
		private = h == "localhost" || strings.HasSuffix(h, ".localhost")
	}
	if private && !r.o.Egress.Allows(host, port) {
		return fault.New(fault.PermissionDenied, "agent url: %s is a private, loopback or link-local address, refused unless the server's egress.allow_private lists it",
			net.JoinHostPort(host, port)).WithDetail("field", "url").
			WithSuggestions("Ask the operator to add " + net.JoinHostPort(host, port) + " to egress.allow_private")
	}
	return nil
}
