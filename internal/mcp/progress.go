package mcp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/tools"
)

// Bounds of what a server's progress notifications may carry on.
const (
	maxProgressMessage = 1024 // bytes of a notification's message kept
	maxProgressEvents  = 1000 // notifications passed on per call; the rest are dropped
)

// progressRoutes hands a connection's progress notifications to the call
// that asked for them, by the progress token each call sends. MCP servers
// send them on the connection, not the call, so the routes live with the
// connection.
type progressRoutes struct {
	mu     sync.Mutex
	routes map[string]*progressRoute
}

type progressRoute struct {
	onEvent func(tools.Event)
	sent    int
}

// add routes token's notifications to onEvent until the returned func is
// called.
func (p *progressRoutes) add(onEvent func(tools.Event)) (token string, remove func()) {
	token = ids.New(ids.ProgressToken)
	p.mu.Lock()
	if p.routes == nil {
		p.routes = map[string]*progressRoute{}
	}
	p.routes[token] = &progressRoute{onEvent: onEvent}
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.routes, token)
		p.mu.Unlock()
	}
}

// handle is the client's ProgressNotificationHandler: a notification for a
// call still running becomes a progress event of that call; others (late,
// unknown token, over the bound) are dropped. The SDK handles notifications
// beside responses, so one sent just before a call's answer may come after
// it and be dropped: progress is advice while a call runs, and each event
// carries its own progress figure.
func (p *progressRoutes) handle(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		token = fmt.Sprint(req.Params.ProgressToken)
	}
	p.mu.Lock()
	r := p.routes[token]
	if r == nil || r.sent >= maxProgressEvents {
		p.mu.Unlock()
		return
	}
	r.sent++
	p.mu.Unlock()
	data := map[string]any{"progress": req.Params.Progress}
	if req.Params.Total > 0 {
		data["total"] = req.Params.Total
	}
	if m := req.Params.Message; m != "" {
		data["message"] = boundedText(m, maxProgressMessage)
	}
	r.onEvent(tools.Event{Kind: "progress", Data: data})
}
