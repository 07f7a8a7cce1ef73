package op

import (
	"encoding/json"
	"slices"

	"github.com/sluicehq/sluice/internal/fault"
)

// Environment is a catalog of operations with the services they use, narrowed to
// what one account may run. An operation outside it cannot be constructed.
type Environment struct {
	catalog map[string]Registration // everything known
	order   []string                // catalog order
	allowed map[string]bool         // what Build may construct
	deps    *Deps
}

// NewEnvironment makes an environment that allows every registration given.
func NewEnvironment(deps *Deps, regs ...Registration) *Environment {
	e := &Environment{catalog: map[string]Registration{}, allowed: map[string]bool{}, deps: deps}
	for _, r := range regs {
		if _, dup := e.catalog[r.Spec.Name]; !dup {
			e.order = append(e.order, r.Spec.Name)
		}
		e.catalog[r.Spec.Name] = r
		e.allowed[r.Spec.Name] = true
	}
	return e
}

func (e *Environment) clone() *Environment {
	c := *e
	c.allowed = make(map[string]bool, len(e.allowed))
	for k, v := range e.allowed {
		c.allowed[k] = v
	}
	return &c
}

// With returns an environment that allows only the named operations (of those e
// allows); "*" keeps them all.
func (e *Environment) With(names ...string) *Environment {
	c := e.clone()
	if slices.Contains(names, "*") {
		return c
	}
	for k := range c.allowed {
		c.allowed[k] = slices.Contains(names, k)
	}
	return c
}

// Without returns an environment that no longer allows the named operations.
func (e *Environment) Without(names ...string) *Environment {
	c := e.clone()
	for _, n := range names {
		c.allowed[n] = false
	}
	return c
}

// WithDeps returns an environment whose operations use d.
func (e *Environment) WithDeps(d *Deps) *Environment {
	c := e.clone()
	c.deps = d
	return c
}

// Deps are the services operations built here use.
func (e *Environment) Deps() *Deps { return e.deps }

// Known reports whether name is in the catalog at all.
func (e *Environment) Known(name string) bool { _, ok := e.catalog[name]; return ok }

// Allowed reports whether name may be built here.
func (e *Environment) Allowed(name string) bool { return e.allowed[name] }

// Spec returns the spec of a known operation.
func (e *Environment) Spec(name string) (Spec, bool) {
	r, ok := e.catalog[name]
	return r.Spec, ok
}

// Specs lists the allowed operations' specs in catalog order.
func (e *Environment) Specs() []Spec {
	var out []Spec
	for _, n := range e.order {
		if e.allowed[n] {
			out = append(out, e.catalog[n].Spec)
		}
	}
	return out
}

// Catalog lists every known operation name in catalog order.
func (e *Environment) Catalog() []string { return append([]string(nil), e.order...) }

// Build constructs the named operation from its raw config. An unknown name is a
// ValidationError; a known one this environment does not allow is a
// PermissionError, and its factory never runs.
func (e *Environment) Build(name string, raw json.RawMessage) (Operation, error) {
	r, ok := e.catalog[name]
	if !ok {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "unknown operation %q", name).
			WithSuggestions("Use one of: " + joinNames(e.order))
	}
	if !e.allowed[name] {
		return nil, fault.Typed(fault.PermissionDenied, fault.PermissionError, "operation %q is not permitted for this account", name)
	}
	deps := e.deps
	if deps == nil {
		deps = &Deps{}
	}
	return r.New(raw, deps)
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
