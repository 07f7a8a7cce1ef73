package gateway

import (
	"context"

	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/caprun"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// capRegistry is the registry as capability runs see it.
type capRegistry struct{ r *capreg.Registry }

func (c capRegistry) Resolve(ctx context.Context, ns, id, constraint string) (*caprun.Published, error) {
	e, doc, err := c.r.Resolve(ctx, ns, id, constraint)
	if err != nil {
		return nil, err
	}
	return &caprun.Published{Namespace: e.Namespace, ID: e.ID, Version: e.Version, Checksum: e.Checksum, Doc: doc}, nil
}

func (c capRegistry) Importer(doc *a2s.Document) capability.Importer { return c.r.Importer(doc) }

// maxCatalog bounds the capabilities offered as session tools.
const maxCatalog = 1000

// Catalog is the latest version of every capability (up to maxCatalog),
// parsed; a document that fails to parse is left out.
func (c capRegistry) Catalog(ctx context.Context) ([]*caprun.Published, error) {
	var out []*caprun.Published
	page := store.Page{Limit: store.MaxPageSize}
	for len(out) < maxCatalog {
		list, next, err := c.r.List(ctx, "", page)
		if err != nil {
			return nil, err
		}
		for _, e := range list {
			p, err := c.Resolve(ctx, e.Namespace, e.ID, e.Version)
			if err == nil {
				out = append(out, p)
			}
		}
		if next == "" {
			break
		}
		page.Cursor = next
	}
	return out, nil
}
