package gateway

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// The session's resources: the account's executions and the published
// capability documents, read through the dispatcher (execution.list and
// execution.get, a2s.registry.list and a2s.registry.get), so an account
// reads as a resource exactly what it may read over REST.
const (
	executionURIPrefix  = "sluice://executions/"
	capabilityURIPrefix = "sluice://capabilities/"
)

// How many of each a resources/list names: the newest executions, the
// registry's first page. Any other is read by its URI (the templates).
const (
	listedExecutions   = 50
	listedCapabilities = 100
)

// addResources gives the session's server its resource templates; the list
// is answered by listResources (loadTools' middleware).
func (ms *mcpSession) addResources() {
	ms.server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: executionURIPrefix + "{id}", Name: "execution",
		Title: "An execution of this account", MIMEType: "application/json",
		Description: "An A2E execution: its status, results and errors (execution.get)."}, ms.readResource)
	ms.server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: capabilityURIPrefix + "{namespace}/{id}@{version}", Name: "capability",
		Title: "A published capability document", MIMEType: "application/yaml",
		Description: "An A2S capability document as published; the version may be latest or a constraint (^1.2.0, escaped: %5E1.2.0)."}, ms.readResource)
}

// listResources answers resources/list: the account's newest executions and
// the registry's capabilities. A source the server does not serve (no
// registry) is left out.
func (ms *mcpSession) listResources(ctx context.Context) (*mcp.ListResourcesResult, error) {
	out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	f := ms.dispatch(ctx, e2a.MethodExecutionList, map[string]any{"limit": float64(listedExecutions)}, nil)
	if f.Kind == e2a.KindError {
		return nil, rpcError(f)
	}
	var execs struct {
		Executions []execution.Summary `json:"executions"`
	}
	if err := remarshalAny(f.Body["result"], &execs); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the executions could not be read"}
	}
	for _, e := range execs.Executions {
		out.Resources = append(out.Resources, &mcp.Resource{URI: executionURIPrefix + e.ExecutionID, Name: e.ExecutionID,
			Title: "Execution " + e.ExecutionID + " (" + string(e.Status) + ")", MIMEType: "application/json"})
	}
	if _, served := ms.srv.dispatcher.methods[MethodRegistryList]; !served {
		return out, nil
	}
	f = ms.dispatch(ctx, MethodRegistryList, map[string]any{"limit": float64(listedCapabilities)}, nil)
	if f.Kind == e2a.KindError {
		return nil, rpcError(f)
	}
	var caps struct {
		Capabilities []capreg.Entry `json:"capabilities"`
	}
	if err := remarshalAny(f.Body["result"], &caps); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the capabilities could not be read"}
	}
	for _, c := range caps.Capabilities {
		out.Resources = append(out.Resources, &mcp.Resource{URI: capabilityURIPrefix + c.Ref(), Name: c.Ref(),
			Title: c.Namespace + "/" + c.ID, Description: c.Description, MIMEType: documentType(c.Format)})
	}
	return out, nil
}

// readResource reads one resource of the templates.
func (ms *mcpSession) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	if id, ok := strings.CutPrefix(uri, executionURIPrefix); ok && id != "" {
		f := ms.dispatch(ctx, e2a.MethodExecutionGet, map[string]any{"execution_id": id}, nil)
		if f.Kind == e2a.KindError {
			return nil, resourceError(f, uri)
		}
		b, err := json.Marshal(f.Body["result"])
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the execution could not be encoded"}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
	}
	ref, ok := strings.CutPrefix(uri, capabilityURIPrefix)
	path, version, _ := strings.Cut(ref, "@")
	if !ok || path == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if v, err := url.PathUnescape(version); err == nil {
		version = v // a constraint's ^ and ~ come escaped (%5E, %7E)
	}
	if version == "latest" {
		version = ""
	}
	f := ms.dispatch(ctx, MethodRegistryGet, map[string]any{"path": path, "version": version}, nil)
	if f.Kind == e2a.KindError {
		return nil, resourceError(f, uri)
	}
	e, ok := f.Body["result"].(capreg.Entry)
	if !ok && remarshalAny(f.Body["result"], &e) != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the capability could not be read"}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: capabilityURIPrefix + e.Ref(),
		MIMEType: documentType(e.Format), Text: string(e.Document)}}}, nil
}

// documentType is the media type of a capability document's format.
func documentType(format string) string {
	if format == "json" {
		return "application/json"
	}
	return "application/yaml"
}

// resourceError is a read's error frame as MCP says it: a resource that is
// not there (or not the account's: scoping hides it) is MCP's resource not
// found; any other is the frame's.
func resourceError(f *e2a.Response, uri string) error {
	if code, _ := f.Body["code"].(string); code == fault.NotFound.String() {
		return mcp.ResourceNotFoundError(uri)
	}
	return rpcError(f)
}
