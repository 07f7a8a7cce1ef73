package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func testMCPServers(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	files := store.MCPServer{AccountID: "alice", Name: "files", Command: "filesystem"}
	got, err := s.AddMCPServer(ctx, files)
	must(t, err)
	if got.CreatedAt.IsZero() || got.Name != "files" || got.Command != "filesystem" || got.URL != "" {
		t.Fatalf("added: %+v", got)
	}
	// The same registration again is no error and keeps the first time.
	again, err := s.AddMCPServer(ctx, files)
	must(t, err)
	if !again.CreatedAt.Equal(got.CreatedAt) {
		t.Fatalf("re-registering changed the time: %v vs %v", again.CreatedAt, got.CreatedAt)
	}
	// The same name, differently: Conflict.
	_, err = s.AddMCPServer(ctx, store.MCPServer{AccountID: "alice", Name: "files", URL: "https://mcp.example.com/mcp"})
	wantKind(t, err, fault.Conflict, "a name registered differently")
	// Names are per account.
	_, err = s.AddMCPServer(ctx, store.MCPServer{AccountID: "bob", Name: "files", URL: "https://mcp.example.com/mcp"})
	must(t, err)
	// A URL server's credentials are kept by vault id; the same
	// registration with other credentials is registered differently.
	docsAuth := store.MCPServerAuth{Headers: map[string]string{"X-Api-Key": "docs-token", "X-Team": "team-id"},
		OAuth: &store.MCPOAuth{ClientID: "docs-client", ClientSecret: "docs-secret"}}
	docs := store.MCPServer{AccountID: "alice", Name: "docs", URL: "https://docs.example.com/mcp", Auth: docsAuth}
	_, err = s.AddMCPServer(ctx, docs)
	must(t, err)
	_, err = s.AddMCPServer(ctx, docs)
	must(t, err)
	_, err = s.AddMCPServer(ctx, store.MCPServer{AccountID: "alice", Name: "docs", URL: "https://docs.example.com/mcp"})
	wantKind(t, err, fault.Conflict, "the same server without its credentials")

	list, err := s.ListMCPServers(ctx, "alice")
	must(t, err)
	if len(list) != 2 || list[0].Name != "docs" || list[1].Name != "files" || list[0].URL != "https://docs.example.com/mcp" ||
		list[1].Command != "filesystem" || list[0].AccountID != "alice" || !list[1].Auth.IsZero() ||
		list[0].Auth.Headers["X-Team"] != "team-id" || list[0].Auth.OAuth == nil || list[0].Auth.OAuth.ClientSecret != "docs-secret" {
		t.Fatalf("alice's servers: %+v", list)
	}
	list, err = s.ListMCPServers(ctx, "carol")
	must(t, err)
	if list == nil || len(list) != 0 {
		t.Fatalf("an account without servers: %#v", list)
	}

	must(t, s.DeleteMCPServer(ctx, "alice", "files"))
	wantKind(t, s.DeleteMCPServer(ctx, "alice", "files"), fault.NotFound, "deleting twice")
	wantKind(t, s.DeleteMCPServer(ctx, "alice", "nothing"), fault.NotFound, "deleting a missing server")
	if list, _ := s.ListMCPServers(ctx, "bob"); len(list) != 1 || list[0].URL != "https://mcp.example.com/mcp" {
		t.Fatalf("deleting alice's server touched bob's: %+v", list)
	}

	// Bad input.
	bad := []store.MCPServer{
		{AccountID: "alice", Name: "", Command: "x"},
		{AccountID: "alice", Name: "a.b", Command: "x"},
		{AccountID: "alice", Name: strings.Repeat("n", store.MaxMCPServerNameBytes+1), Command: "x"},
		{AccountID: "alice", Name: "none"},
		{AccountID: "alice", Name: "both", Command: "x", URL: "https://x.example.com"},
		{AccountID: "alice", Name: "long", URL: "https://x.example.com/" + strings.Repeat("p", store.MaxMCPURLBytes)},
		{AccountID: "", Name: "x", Command: "x"},
		{AccountID: "alice", Name: "cmdauth", Command: "x", Auth: store.MCPServerAuth{Headers: map[string]string{"X-Key": "k"}}},
		{AccountID: "alice", Name: "badheader", URL: "https://x.example.com", Auth: store.MCPServerAuth{Headers: map[string]string{"Bad Name": "k"}}},
		{AccountID: "alice", Name: "reserved", URL: "https://x.example.com", Auth: store.MCPServerAuth{Headers: map[string]string{"mcp-session-id": "k"}}},
		{AccountID: "alice", Name: "noid", URL: "https://x.example.com", Auth: store.MCPServerAuth{Headers: map[string]string{"X-Key": ""}}},
		{AccountID: "alice", Name: "twoauth", URL: "https://x.example.com", Auth: store.MCPServerAuth{Headers: map[string]string{"authorization": "k"},
			OAuth: &store.MCPOAuth{ClientID: "c", ClientSecret: "s"}}},
		{AccountID: "alice", Name: "halfoauth", URL: "https://x.example.com", Auth: store.MCPServerAuth{OAuth: &store.MCPOAuth{ClientID: "c"}}},
	}
	for _, b := range bad {
		_, err := s.AddMCPServer(ctx, b)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("bad registration %.60q", b.Name))
	}
	_, err = s.AddMCPServer(ctx, store.MCPServer{AccountID: "nobody", Name: "x", Command: "x"})
	wantKind(t, err, fault.NotFound, "a registration of a missing account")

	// The bound per account.
	for i := 0; ; i++ {
		_, err := s.AddMCPServer(ctx, store.MCPServer{AccountID: "bob", Name: fmt.Sprintf("s%d", i), Command: "x"})
		if err != nil {
			wantKind(t, err, fault.Invalid, "one server too many")
			break
		}
		if i > store.MaxMCPServersPerAccount {
			t.Fatal("no bound on MCP servers per account")
		}
	}
	if list, _ := s.ListMCPServers(ctx, "bob"); len(list) != store.MaxMCPServersPerAccount {
		t.Fatalf("bob holds %d servers, want the bound %d", len(list), store.MaxMCPServersPerAccount)
	}
}
