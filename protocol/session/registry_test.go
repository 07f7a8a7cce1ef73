package session_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/protocol/session"
)

// A plugin namespace, as a plugin outside this package writes one.

type chainRunReq struct {
	session.Header
	Chain string          `json:"chain" a2e:"required"`
	Input json.RawMessage `json:"input,omitempty" a2e:"object"`
	Steps []chainStep     `json:"steps,omitempty"`
}

func (*chainRunReq) MessageType() string { return "chain/run/req" }

type chainStep struct {
	Name  string `json:"name" a2e:"required"`
	Tries int    `json:"tries,omitempty" a2e:"nonneg"`
}

// Validate: a check beyond the fields' own, named by path.
func (s *chainStep) Validate() error {
	if strings.HasPrefix(s.Name, "_") {
		return errors.New("a step name must not start with '_'")
	}
	return nil
}

type chainRunResp struct {
	session.Header
	session.Ref
	Done bool `json:"done"`
}

func (*chainRunResp) MessageType() string { return "chain/run/resp" }

type chainEvent struct {
	session.Header
	session.EventFields
}

func (*chainEvent) MessageType() string { return "chain/event" }

var chainNS = session.Namespace{Name: "chain", Types: []session.Message{
	(*chainRunReq)(nil), (*chainRunResp)(nil), (*chainEvent)(nil),
}}

func TestRegistryPlugin(t *testing.T) {
	reg := newRegistry(t)
	line := []byte(`{"a2e":"1.0","type":"chain/run/req","id":"` + idReq + `","ts":1,"chain":"triage","steps":[{"name":"a"},{"name":"b","tries":2}]}`)

	// Before the plugin registers, its types decode as Generic.
	m, err := reg.Decode(line, session.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := m.(*session.Generic); !ok || g.MessageType() != "chain/run/req" || string(g.Fields["chain"]) != `"triage"` {
		t.Fatalf("before Register: %#v", m)
	}

	if err := reg.Register(chainNS); err != nil {
		t.Fatal(err)
	}
	m, err = reg.Decode(line, session.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	req, ok := m.(*chainRunReq)
	if !ok || req.Chain != "triage" || len(req.Steps) != 2 || req.Steps[1].Tries != 2 || req.ID != idReq {
		t.Fatalf("after Register: %#v", m)
	}
	assertRoundTripIn(t, reg, m)

	if got := reg.Namespaces(); !slices.Equal(got, []string{"tool", "mcp", "chain"}) {
		t.Errorf("Namespaces() = %v", got)
	}
	for typ, want := range map[string]string{"chain/event": "chain", "ping": "", "tool/call/req": "tool", "mcp/server/list/req": "mcp"} {
		if ns, ok := reg.NamespaceOf(typ); !ok || ns != want {
			t.Errorf("NamespaceOf(%q) = %q, %v; want %q", typ, ns, ok, want)
		}
	}
	if _, ok := reg.NamespaceOf("chain/other"); ok {
		t.Error("NamespaceOf an unregistered type is ok")
	}
	if _, ok := reg.New("chain/run/resp").(*chainRunResp); !ok {
		t.Error("New does not make the plugin's type")
	}
	if reg.New("nope") != nil {
		t.Error("New of an unknown type is not nil")
	}
	if !slices.Contains(reg.Types(), "chain/event") || !slices.IsSorted(reg.Types()) {
		t.Errorf("Types() = %v", reg.Types())
	}

	// The plugin's own checks run, and errors name the path.
	for _, c := range []struct{ body, path, msg string }{
		{`"steps":[{"name":"a"},{"name":"_b"}]`, "steps[1]", "must not start with '_'"},
		{`"chain":"c","steps":[{"name":"a","tries":-1}]`, "steps[0].tries", "must not be negative"},
		{`"chain":"c","input":[1]`, "input", "must be an object"},
	} {
		line := `{"a2e":"1.0","type":"chain/run/req","id":"` + idReq + `","ts":1,` + c.body + `}`
		if !strings.Contains(c.body, `"chain"`) {
			line = strings.Replace(line, `"ts":1,`, `"ts":1,"chain":"c",`, 1)
		}
		_, err := reg.Decode([]byte(line), session.Limits{})
		var e *session.Error
		if !errors.As(err, &e) || e.Code != session.CodeSchemaViolation || e.Path != c.path || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: got %v (%#v), want %s at %s", c.body, err, e, c.msg, c.path)
		}
	}
}

func assertRoundTripIn(t *testing.T, reg *session.Registry, m session.Message) {
	t.Helper()
	b, err := session.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := reg.Decode(b, session.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := session.Marshal(m2)
	if string(b) != string(b2) {
		t.Fatalf("not stable:\n%s\n%s", b, b2)
	}
}

// Types a registry must refuse.

type noHeader struct{ X string }

func (*noHeader) Head() *session.Header { return nil }
func (*noHeader) MessageType() string   { return "bad/no-header" }

type mapField struct {
	session.Header
	M map[string]int `json:"m"`
}

func (*mapField) MessageType() string { return "bad/map" }

type noJSONName struct {
	session.Header
	X string
}

func (*noJSONName) MessageType() string { return "bad/noname" }

type badTag struct {
	session.Header
	X string `json:"x" a2e:"mandatory"`
}

func (*badTag) MessageType() string { return "bad/tag" }

type baseKeyField struct {
	session.Header
	Version string `json:"version"`
}

func (*baseKeyField) MessageType() string { return "bad/basekey" }

// XField clashes with twoNames' own "x" through embedding, which
// encoding/json would resolve silently and the registry refuses.
type XField struct {
	X string `json:"x"`
}

type twoNames struct {
	session.Header
	XField
	B string `json:"x"`
}

func (*twoNames) MessageType() string { return "bad/twonames" }

type outside struct{ session.Header }

func (*outside) MessageType() string { return "other/thing" }

type okBad struct{ session.Header }

func (*okBad) MessageType() string { return "bad/ok" }

type badTypeString struct{ session.Header }

func (*badTypeString) MessageType() string { return "bad/has space" }

func TestRegistryRefuses(t *testing.T) {
	cases := []struct {
		name string
		ns   session.Namespace
		want string
	}{
		{"empty name", session.Namespace{Types: []session.Message{(*okBad)(nil)}}, "needs a name"},
		{"name with a slash", session.Namespace{Name: "a/b"}, "taken or not a name"},
		{"the tool namespace again", session.Namespace{Name: "tool"}, "taken"},
		{"the mcp namespace again", session.MCP, "taken"},
		{"a type of another namespace", session.Namespace{Name: "bad", Types: []session.Message{(*okBad)(nil), (*outside)(nil)}}, `not a type of namespace "bad"`},
		{"a base type", session.Namespace{Name: "ping", Types: []session.Message{(*session.Ping)(nil)}}, "not a type of namespace"},
		{"a registered type", session.Namespace{Name: "tool2", Types: []session.Message{(*session.ToolCallReq)(nil)}}, "not a type of namespace"},
		{"a base type under its own prefix", session.Namespace{Name: "handshake", Types: []session.Message{(*session.HandshakeReq)(nil)}}, `type "handshake/req" is already registered`},
		{"the same type twice", session.Namespace{Name: "bad", Types: []session.Message{(*okBad)(nil), (*okBad)(nil)}}, "already registered"},
		{"no Header", session.Namespace{Name: "bad", Types: []session.Message{(*noHeader)(nil)}}, "does not embed session.Header"},
		{"a nil message", session.Namespace{Name: "bad", Types: []session.Message{nil}}, "not a pointer to a struct"},
		{"a map field", session.Namespace{Name: "bad", Types: []session.Message{(*mapField)(nil)}}, "cannot be decoded"},
		{"a field without a json name", session.Namespace{Name: "bad", Types: []session.Message{(*noJSONName)(nil)}}, "has no json name"},
		{"an unknown tag option", session.Namespace{Name: "bad", Types: []session.Message{(*badTag)(nil)}}, `unknown a2e tag option "mandatory"`},
		{"a base key as a field", session.Namespace{Name: "bad", Types: []session.Message{(*baseKeyField)(nil)}}, `"version" is a base field`},
		{"two fields of one name", session.Namespace{Name: "bad", Types: []session.Message{(*twoNames)(nil)}}, `two fields named "x"`},
		{"a bad type string", session.Namespace{Name: "bad", Types: []session.Message{(*badTypeString)(nil)}}, "not a type of namespace"},
		{"65 wire fields", session.Namespace{Name: "bad", Types: []session.Message{(*wide)(nil)}}, "65 wire fields, over 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := newRegistry(t)
			before := reg.Types()
			err := reg.Register(c.ns)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one saying %q", err, c.want)
			}
			// A refused namespace leaves nothing behind, not even the
			// types listed before the bad one.
			if got := reg.Types(); !slices.Equal(got, before) {
				t.Errorf("types after a refused Register: %v", got)
			}
			if slices.Contains(reg.Namespaces(), c.ns.Name) && c.ns.Name != "tool" && c.ns.Name != "mcp" {
				t.Errorf("namespace %q was kept", c.ns.Name)
			}
		})
	}
}

// TestRegistryConcurrent: decoding goes on while plugins register (run with
// -race); each line decodes either as Generic (before) or typed (after).
func TestRegistryConcurrent(t *testing.T) {
	reg := newRegistry(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				typ := fmt.Sprintf("ns%d/thing", i%10)
				line := []byte(`{"a2e":"1.0","type":"` + typ + `","id":"` + idReq + `","ts":1}`)
				m, err := reg.Decode(line, session.Limits{})
				if err != nil {
					t.Error(err)
					return
				}
				if m.Head().Type != typ {
					t.Errorf("goroutine %d: type %q", g, m.Head().Type)
				}
				_ = reg.Namespaces()
			}
		})
	}
	for i := range 10 {
		wg.Go(func() {
			if err := reg.Register(session.Namespace{Name: fmt.Sprintf("ns%d", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := len(reg.Namespaces()); n != 12 {
		t.Errorf("%d namespaces, want 12", n)
	}
}

// TestRegistryIndependent: registering in one registry leaves another as it
// was.
func TestRegistryIndependent(t *testing.T) {
	a, b := session.NewRegistry(), session.NewRegistry()
	if err := a.Register(session.MCP); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.NamespaceOf(session.TypeMCPListReq); ok {
		t.Error("a registration leaked into another registry")
	}
	if got := b.Namespaces(); !slices.Equal(got, []string{"tool"}) {
		t.Errorf("a new registry has namespaces %v, want [tool]", got)
	}
}
