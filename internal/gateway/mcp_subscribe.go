package gateway

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// subscribe answers resources/subscribe. An execution of the account that
// is still going is followed (execution.events through the dispatcher, as
// the REST event stream is): each of its frames is a
// notifications/resources/updated of its URI, until its final frame, an
// unsubscribe, or the session's end. A finished execution and a capability
// document (a version never changes) are accepted and send nothing.
func (ms *mcpSession) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	id, isExecution := strings.CutPrefix(uri, executionURIPrefix)
	if !isExecution {
		_, err := ms.readResource(ctx, &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri}})
		return err
	}
	f := ms.dispatch(ctx, e2a.MethodExecutionGet, map[string]any{"execution_id": id}, nil)
	if f.Kind == e2a.KindError {
		return resourceError(f, uri)
	}
	var view struct {
		Status string `json:"status"`
	}
	if remarshalAny(f.Body["result"], &view) != nil || store.Status(view.Status).Final() {
		return nil
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if _, on := ms.follows[uri]; on {
		return nil
	}
	// The follow outlives the subscribe request: it ends with the session.
	fctx, stop := context.WithCancel(ms.srv.sessionsCtx)
	if ms.follows == nil {
		ms.follows = map[string]context.CancelFunc{}
	}
	ms.follows[uri] = stop
	go ms.follow(fctx, stop, uri, id)
	return nil
}

// follow sends an update of uri at each frame of execution id.
func (ms *mcpSession) follow(ctx context.Context, stop context.CancelFunc, uri, id string) {
	defer func() {
		stop()
		ms.mu.Lock()
		delete(ms.follows, uri)
		ms.mu.Unlock()
	}()
	updated := func(*e2a.Response) {
		_ = ms.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
	if f := ms.dispatch(ctx, e2a.MethodExecutionEvents, map[string]any{"execution_id": id}, updated); f.Kind != e2a.KindError {
		updated(f) // the final frame: the execution's last change
	}
}

// unsubscribe stops following uri.
func (ms *mcpSession) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	ms.mu.Lock()
	stop := ms.follows[req.Params.URI]
	ms.mu.Unlock()
	if stop != nil {
		stop()
	}
	return nil
}

// stopFollowing ends every follow of the session (it ended).
func (ms *mcpSession) stopFollowing() {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, stop := range ms.follows {
		stop()
	}
}
