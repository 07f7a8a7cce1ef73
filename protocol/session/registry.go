package session

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Namespace is a set of message types a plugin adds: Name is the capability
// an agent asks for in its handshake (agent_caps), and every type string
// starts with Name + "/". Types lists nil pointers of the message types, e.g.
// (*MCPListReq)(nil); each must be a struct that embeds Header, with the tags
// plan.go describes.
type Namespace struct {
	Name  string
	Types []Message
}

// Registry maps type strings to message types: the base namespace and the tool
// namespace are always there, plugins Register more (MCP is one). Decode is
// safe for concurrent use, also with Register; register plugins at start-up.
type Registry struct {
	mu    sync.Mutex // serialises Register
	state atomic.Pointer[registryState]
}

// registryState is immutable once published.
type registryState struct {
	types      map[string]*typeInfo
	namespaces []string // plugin namespaces in registration order
	plans      map[reflect.Type]*plan
}

type typeInfo struct {
	namespace string
	typ       reflect.Type // the struct type
	plan      *plan
}

// NewRegistry returns a registry with the base and tool namespaces.
func NewRegistry() *Registry {
	r := &Registry{}
	r.state.Store(&registryState{types: map[string]*typeInfo{}, plans: map[reflect.Type]*plan{}})
	for _, ns := range []Namespace{base, tools} {
		if err := r.register(ns, ns.Name == ""); err != nil {
			panic("session: built-in namespace: " + err.Error()) // a bug in this package; tests catch it
		}
	}
	return r
}

// Register adds a plugin's namespace. It fails on an empty or taken name, a
// type string outside the namespace or already registered, and a type the
// decoder cannot fill.
func (r *Registry) Register(ns Namespace) error {
	if ns.Name == "" {
		return fmt.Errorf("session: a namespace needs a name")
	}
	return r.register(ns, false)
}

func (r *Registry) register(ns Namespace, isBase bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.state.Load()
	if !isBase && (slices.Contains(old.namespaces, ns.Name) || strings.Contains(ns.Name, "/")) {
		return fmt.Errorf("session: namespace %q is taken or not a name", ns.Name)
	}
	next := &registryState{
		types:      make(map[string]*typeInfo, len(old.types)+len(ns.Types)),
		namespaces: slices.Clone(old.namespaces),
		plans:      make(map[reflect.Type]*plan, len(old.plans)),
	}
	for k, v := range old.types {
		next.types[k] = v
	}
	for k, v := range old.plans {
		next.plans[k] = v
	}
	for _, m := range ns.Types {
		t := reflect.TypeOf(m)
		if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return fmt.Errorf("session: namespace %q: %T is not a pointer to a struct", ns.Name, m)
		}
		if f, ok := t.Elem().FieldByName("Header"); !ok || !f.Anonymous || f.Type != headerType {
			return fmt.Errorf("session: %s does not embed session.Header", t.Elem())
		}
		typ := m.MessageType()
		if !validType(typ) || (!isBase && !strings.HasPrefix(typ, ns.Name+"/")) {
			return fmt.Errorf("session: %s: type %q is not a type of namespace %q", t.Elem(), typ, ns.Name)
		}
		if _, taken := next.types[typ]; taken {
			return fmt.Errorf("session: type %q is already registered", typ)
		}
		p, err := buildPlan(t.Elem(), next.plans)
		if err != nil {
			return fmt.Errorf("session: %w", err)
		}
		for _, name := range p.names {
			if isBaseKey(name) {
				return fmt.Errorf("session: %s: %q is a base field", t.Elem(), name)
			}
		}
		next.types[typ] = &typeInfo{namespace: ns.Name, typ: t.Elem(), plan: p}
	}
	if !isBase {
		next.namespaces = append(next.namespaces, ns.Name)
	}
	r.state.Store(next)
	return nil
}

// Namespaces returns the plugin namespaces (the capabilities an agent may ask
// for), "tool" first, in registration order.
func (r *Registry) Namespaces() []string { return slices.Clone(r.state.Load().namespaces) }

// NamespaceOf returns the namespace of a registered type ("" for a base type)
// and whether the type is registered.
func (r *Registry) NamespaceOf(typ string) (string, bool) {
	ti, ok := r.state.Load().types[typ]
	if !ok {
		return "", false
	}
	return ti.namespace, true
}

// Types returns the registered type strings, sorted.
func (r *Registry) Types() []string {
	st := r.state.Load()
	out := make([]string, 0, len(st.types))
	for t := range st.types {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// New returns a new zero message of a registered type, or nil.
func (r *Registry) New(typ string) Message {
	ti, ok := r.state.Load().types[typ]
	if !ok {
		return nil
	}
	return reflect.New(ti.typ).Interface().(Message)
}

// validType: segments of ASCII letters, digits, '_', '-' and '.', joined by
// '/'; at most 128 bytes.
func validType(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "" {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
				return false
			}
		}
	}
	return true
}
