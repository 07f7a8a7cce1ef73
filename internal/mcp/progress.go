package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/tools"
)

// Bounds of what a server's progress notifications may carry on.
const (
	maxProgressMessage = 1024 // bytes of a notification's message kept
	maxProgressEvents  = 1000 // notifications passed on per call; the rest are dropped
	// maxProgressDrain bounds the wait, after a call's answer, for the
	// notifications that arrived before it to be handed on.
	maxProgressDrain = 2 * time.Second
)

// progressMethod is the method of MCP's progress notifications.
const progressMethod = "notifications/progress"

// progressRoutes hands a connection's progress notifications to the call
// that asked for them, by the progress token each call sends. MCP servers
// send them on the connection, not the call, so the routes live with the
// connection.
//
// The SDK hands notifications to the handler one at a time in the order
// they arrived, but settles a call the moment its answer arrives: a
// notification sent just before the answer is often still queued when the
// call returns. So the wire (tapConn, sseTap) counts the notifications of
// each token as they arrive, and a call, once answered, waits until the
// handler has seen as many as had arrived: every notification sent before
// the answer is delivered, in order; one sent after it is dropped.
type progressRoutes struct {
	mu     sync.Mutex
	routes map[string]*progressRoute
}

type progressRoute struct {
	onEvent func(tools.Event)
	sent    int
	arrived int           // notifications read off the wire for the token
	handled int           // of those, the ones the handler has taken
	caught  chan struct{} // non-nil while the call waits; closed when handled catches up
}

// add routes token's notifications to onEvent until the returned finish is
// called; finish first waits (within ctx and maxProgressDrain) for the
// notifications that arrived before it to be delivered.
func (p *progressRoutes) add(onEvent func(tools.Event)) (token string, finish func(ctx context.Context)) {
	token = ids.New(ids.ProgressToken)
	r := &progressRoute{onEvent: onEvent}
	p.mu.Lock()
	if p.routes == nil {
		p.routes = map[string]*progressRoute{}
	}
	p.routes[token] = r
	p.mu.Unlock()
	return token, func(ctx context.Context) {
		p.mu.Lock()
		var caught chan struct{}
		if r.handled < r.arrived {
			caught = make(chan struct{})
			r.caught = caught
		}
		p.mu.Unlock()
		if caught != nil {
			t := time.NewTimer(maxProgressDrain)
			select {
			case <-caught:
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
		p.mu.Lock()
		delete(p.routes, token)
		p.mu.Unlock()
	}
}

// arrivedRaw counts a message read off the wire if it is a progress
// notification of a call that waits for its notifications.
func (p *progressRoutes) arrivedRaw(data []byte) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Token any `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != progressMethod {
		return
	}
	p.arrived(tokenString(m.Params.Token))
}

func (p *progressRoutes) arrived(token string) {
	p.mu.Lock()
	if r := p.routes[token]; r != nil {
		r.arrived++
	}
	p.mu.Unlock()
}

// handle is the client's ProgressNotificationHandler: a notification for a
// call still running becomes a progress event of that call; others (late,
// unknown token, over the bound) are dropped.
func (p *progressRoutes) handle(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	token := tokenString(req.Params.ProgressToken)
	p.mu.Lock()
	r := p.routes[token]
	if r == nil {
		p.mu.Unlock()
		return
	}
	deliver := r.sent < maxProgressEvents
	if deliver {
		r.sent++
	}
	p.mu.Unlock()
	if deliver {
		data := map[string]any{"progress": req.Params.Progress}
		if req.Params.Total > 0 {
			data["total"] = req.Params.Total
		}
		if m := req.Params.Message; m != "" {
			data["message"] = boundedText(m, maxProgressMessage)
		}
		r.onEvent(tools.Event{Kind: "progress", Data: data})
	}
	// Counted once delivered, so a call that waits for it returns after
	// its event was passed on.
	p.mu.Lock()
	r.handled++
	if r.caught != nil && r.handled >= r.arrived {
		close(r.caught)
		r.caught = nil
	}
	p.mu.Unlock()
}

// tokenString is a progress token as routes key it: the SDK decodes a
// number as float64, the wire reader likewise.
func tokenString(t any) string {
	if s, ok := t.(string); ok {
		return s
	}
	return fmt.Sprint(t)
}
