package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/mcp"
	"github.com/sluicehq/sluice/internal/mcp/mcptest"
	"github.com/sluicehq/sluice/internal/tools"
)

// A call whose caller's deadline passes is a timeout naming the tool and
// the limit, wherever the call was (here: waiting on the tool).
func TestCallerDeadlineIsATimeout(t *testing.T) {
	st := openStore(t)
	r := newRegistry(t, st, mcp.Options{})
	alice := principal("alice", "*")
	if _, err := r.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
	defer cancel()
	_, err := tools.New(r.Provider()).Call(cctx, alice, "mcp.local.slow", map[string]any{"ms": 10000}, nil)
	wantKind(t, err, fault.Timeout, "caller's deadline")
	fe := fault.From(err)
	if fe.Kind.Row().ToolCode != "timeout" || !strings.Contains(fe.Message, `"mcp.local.slow"`) || !strings.Contains(fe.Message, "ms") {
		t.Fatalf("timeout error %q (code %s): want the tool and the limit named", fe.Message, fe.Kind.Row().ToolCode)
	}
}

// urlServer serves the test tools over streamable HTTP and registers them
// for alice as "web".
func urlServer(t *testing.T, r *mcp.Registry) {
	t.Helper()
	srv := mcptest.NewServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	// The registry first: its connection holds a stream open, which
	// Close of the test server waits for.
	t.Cleanup(func() { r.Close(); hs.Close() })
	if _, err := r.Register(ctx, principal("alice", "*"), mcp.Registration{Name: "web", URL: hs.URL}); err != nil {
		t.Fatal(err)
	}
}

// Every progress notification sent before the answer reaches the caller,
// in order, also the one sent just before the answer, over both transports.
func TestProgressBeforeTheAnswerIsDelivered(t *testing.T) {
	st := openStore(t)
	r := newRegistry(t, st, mcp.Options{Egress: egress.Policy{AllowPrivate: []string{"127.0.0.1"}}})
	alice := principal("alice", "*")
	if _, err := r.Register(ctx, alice, mcp.Registration{Name: "local", Command: "tester"}); err != nil {
		t.Fatal(err)
	}
	urlServer(t, r)
	const steps, calls = 5, 20
	for _, server := range []string{"local", "web"} {
		for i := range calls {
			var mu sync.Mutex
			var got []string
			res, err := r.Provider().Call(ctx, alice, "mcp."+server+".progress", map[string]any{"steps": steps}, func(e tools.Event) {
				d, _ := e.Data.(map[string]any)
				mu.Lock()
				got = append(got, fmt.Sprint(d["message"]))
				mu.Unlock()
			})
			if err != nil || !res.Success {
				t.Fatalf("%s call %d: %+v %v", server, i, res, err)
			}
			mu.Lock()
			seen := strings.Join(got, ",")
			mu.Unlock()
			if seen != "step 1,step 2,step 3,step 4,step 5" {
				t.Fatalf("%s call %d: events %q, want all five in order", server, i, seen)
			}
		}
	}
}
