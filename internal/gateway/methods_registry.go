package gateway

import (
	"context"

	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2s"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// CapabilityRegistry is the A2S registry (internal/capreg).
type CapabilityRegistry interface {
	Publish(ctx context.Context, data []byte, file, namespace, publisher string) (capreg.Entry, []a2s.Diagnostic, error)
	Get(ctx context.Context, namespace, id, constraint string) (capreg.Entry, error)
	List(ctx context.Context, namespacePrefix string, p store.Page) ([]capreg.Entry, string, error)
}

// registryPublish: {namespace, document, file}; admin only. The answer is the
// entry without its document, and the lint warnings.
func (s *Server) registryPublish(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	ns := a.String("namespace")
	doc := a.String("document")
	file := a.String("file")
	e, diags, err := s.svc.Registry.Publish(ctx, []byte(doc), file, ns, c.Principal.ID)
	if err != nil {
		return err
	}
	if s.svc.Catalog != nil {
		if err := s.svc.Catalog.RefreshCapabilities(ctx); err != nil {
			s.log.Warn("discovery not refreshed after a publish", "error", fault.From(err))
		}
	}
	warnings := make([]string, 0, len(diags))
	for _, d := range diags {
		warnings = append(warnings, d.String())
	}
	return w.Complete(map[string]any{"capability": e.WithoutDocument(), "warnings": warnings})
}

// registryList: ?namespace=PREFIX&cursor=&limit=.
func (s *Server) registryList(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	ns := a.String("namespace")
	page := store.Page{Cursor: a.String("cursor"), Limit: a.Int("limit")}
	list, next, err := s.svc.Registry.List(ctx, ns, page)
	if err != nil {
		return err
	}
	if list == nil {
		list = []capreg.Entry{}
	}
	body := map[string]any{"capabilities": list}
	if next != "" {
		body["next_cursor"] = next
	}
	return w.Complete(body)
}

// registryGet: /api/v1/a2s/registry/NS/ID?version=CONSTRAINT, the entry with
// its document.
func (s *Server) registryGet(ctx context.Context, c *Call, a args, w *e2a.StreamWriter) error {
	path := a.String("path")
	version := a.String("version")
	ns, id, err := capreg.SplitPath(path)
	if err != nil {
		return fault.From(err)
	}
	e, err := s.svc.Registry.Get(ctx, ns, id, version)
	if err != nil {
		return err
	}
	return w.Complete(e)
}
