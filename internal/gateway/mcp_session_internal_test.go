package gateway

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/tools"
)

// A tool the go-sdk refuses (it panics on a malformed x-mcp-header) is left
// out of the session; the others are served.
func TestMCPSessionLeavesOutAToolTheSDKRefuses(t *testing.T) {
	s := New(Config{}, Services{}, nil, nil, nil)
	ms := s.newMCPSession("mcp-test", &ConnAuth{p: &account.Principal{ID: "acct", KeyID: "k"}})
	bad := json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"X-A"}}}`)
	ms.applyTools([]tools.Tool{{Name: "mcp.up.bad", Input: bad}, {Name: "op.FilterData"}})
	if _, ok := ms.tool("mcp.up.bad"); ok {
		t.Fatal("the refused tool is in the session's table")
	}
	if _, ok := ms.tool("op.FilterData"); !ok {
		t.Fatal("the good tool is missing")
	}
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := ms.server.Connect(context.Background(), serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// No tools/list here: it would ask the dispatcher, which has no services.
	if ms.has("mcp.up.bad") || !ms.has("op.FilterData") {
		t.Fatal("has")
	}
}
