package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// agentEntry is a valid registry entry of name whose token is a vault
// reference.
func agentEntry(name, url string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"name":%q,"url":%q,"auth_config":{"type":"bearer","token":{"credentialRef":{"id":"agent.%s.token.1"}}},`+
		`"timeout":30000,"retry_config":{"max_retries":3,"initial_delay_ms":1000,"max_delay_ms":30000,"backoff_multiplier":2}}`, name, url, name))
}

func testAgents(t *testing.T, s store.Store) {
	a := store.Agent{Name: "ResearchAgent", Entry: agentEntry("ResearchAgent", "http://research-agent:8080")}
	got, created, err := s.PutAgent(ctx, a)
	must(t, err)
	if !created || got.CreatedAt.IsZero() || !got.UpdatedAt.Equal(got.CreatedAt) || got.Name != a.Name {
		t.Fatalf("put: %+v created %v", got, created)
	}
	// Replacing keeps the creation time and says it replaced.
	b := store.Agent{Name: "ResearchAgent", Entry: agentEntry("ResearchAgent", "http://research-agent:9090")}
	replaced, created, err := s.PutAgent(ctx, b)
	must(t, err)
	if created || !replaced.CreatedAt.Equal(got.CreatedAt) || replaced.UpdatedAt.Before(got.UpdatedAt) {
		t.Fatalf("replace: %+v created %v (first %+v)", replaced, created, got)
	}
	g, err := s.GetAgent(ctx, "ResearchAgent")
	must(t, err)
	if string(g.Entry) != string(b.Entry) || !g.CreatedAt.Equal(got.CreatedAt) || !g.UpdatedAt.Equal(replaced.UpdatedAt) {
		t.Fatalf("get: %s %+v", g.Entry, g)
	}
	_, _, err = s.PutAgent(ctx, store.Agent{Name: "echo", Entry: json.RawMessage(`{"name":"echo","url":"https://echo.example.com"}`)})
	must(t, err)
	list, err := s.ListAgents(ctx)
	must(t, err)
	if len(list) != 2 || list[0].Name != "ResearchAgent" || list[1].Name != "echo" || string(list[0].Entry) != string(b.Entry) ||
		list[1].CreatedAt.IsZero() {
		t.Fatalf("list: %+v", list)
	}
	// Names are case-sensitive.
	_, err = s.GetAgent(ctx, "researchagent")
	wantKind(t, err, fault.NotFound, "another case")

	must(t, s.DeleteAgent(ctx, "echo"))
	wantKind(t, s.DeleteAgent(ctx, "echo"), fault.NotFound, "deleting twice")
	_, err = s.GetAgent(ctx, "echo")
	wantKind(t, err, fault.NotFound, "a deleted agent")
	_, err = s.GetAgent(ctx, "a.b")
	wantKind(t, err, fault.Invalid, "a bad name")
	if list, _ := s.ListAgents(ctx); len(list) != 1 {
		t.Fatalf("after delete: %+v", list)
	}

	// Bad entries, a token in clear above all, are refused and never stored.
	const token = "secret-token-123"
	bad := []store.Agent{
		{Name: "", Entry: agentEntry("x", "http://x")},
		{Name: "a.b", Entry: agentEntry("a.b", "http://x")},
		{Name: "x", Entry: nil},
		{Name: "x", Entry: json.RawMessage(`{"name":"x"`)},
		{Name: "x", Entry: json.RawMessage(`{"name":"x","url":"ftp://x"}`)},
		{Name: "x", Entry: agentEntry("y", "http://x")},
		{Name: "x", Entry: json.RawMessage(`{"name":"x","url":"http://x","auth_config":{"type":"bearer","token":"` + token + `"}}`)},
		{Name: "x", Entry: json.RawMessage(`{"name":"x","url":"http://x","auth_config":{"type":"headers","headers":{"X-Key":"` + token + `"}}}`)},
		{Name: "x", Entry: json.RawMessage(`{"name":"x","url":"http://x","pad":"` + strings.Repeat("p", store.MaxAgentEntryBytes) + `"}`)},
	}
	for i, a := range bad {
		_, _, err := s.PutAgent(ctx, a)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("bad agent %d", i))
		noSecret(t, err, token)
	}
	if _, err := s.GetAgent(ctx, "x"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("a refused entry was stored: %v", err)
	}
}

func testAgentBound(t *testing.T, s store.Store) {
	parallel(t, store.MaxAgents, func(i int) error {
		name := fmt.Sprintf("agent-%04d", i)
		_, _, err := s.PutAgent(ctx, store.Agent{Name: name, Entry: agentEntry(name, "http://a")})
		return err
	})
	_, _, err := s.PutAgent(ctx, store.Agent{Name: "one-more", Entry: agentEntry("one-more", "http://a")})
	wantKind(t, err, fault.Invalid, "one agent too many")
	// Replacing one is still possible at the bound.
	_, created, err := s.PutAgent(ctx, store.Agent{Name: "agent-0001", Entry: agentEntry("agent-0001", "http://b")})
	must(t, err)
	if created {
		t.Fatal("replacing at the bound created")
	}
	if list, _ := s.ListAgents(ctx); len(list) != store.MaxAgents {
		t.Fatalf("%d agents, want %d", len(list), store.MaxAgents)
	}
}
