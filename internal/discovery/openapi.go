package discovery

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// MaxOpenAPIBytes bounds a document FromOpenAPI reads.
const MaxOpenAPIBytes = 8 << 20

// methods in the order entries are made for one path.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

// FromOpenAPI turns each operation of an OpenAPI 3.0 or 3.1 document (JSON
// or YAML) into an operation entry of source name. An entry's ID is
// NAME.operationId, or NAME.METHOD.path for an operation without one; its
// Permission is the same string, the form of an `apis` grant
// (RESOLUTIONS.md), so a filter may allow NAME or NAME.operationId. The URL
// is the first server's URL (variables at their defaults) followed by the
// path template. Parameters are the path item's and the operation's, then
// the top-level properties of a JSON request body (In "body").
//
// References must stay inside the document: an external $ref is refused,
// so importing a document never makes sluice read a file or the network.
func FromOpenAPI(name string, data []byte) ([]Entry, error) {
	_, ops, err := ImportOpenAPI(name, data)
	return ops, err
}

// ImportOpenAPI is FromOpenAPI that also returns the API entry of the
// document: kind api, ID and Permission NAME, Name the title, Description
// from info, URL the first server, Tags every tag its operations use.
func ImportOpenAPI(name string, data []byte) (api Entry, entries []Entry, err error) {
	if name == "" || strings.ContainsAny(name, "./ \t\n") {
		return api, nil, fmt.Errorf("openapi: API name %q must be non-empty without '.', '/' or spaces", name)
	}
	if len(data) > MaxOpenAPIBytes {
		return api, nil, fmt.Errorf("openapi %s: document of %d bytes is over the limit of %d", name, len(data), MaxOpenAPIBytes)
	}
	// A third-party parser fed untrusted bytes: a panic in it is a bad
	// document to our caller, not a crashed server.
	defer func() {
		if r := recover(); r != nil {
			api, entries, err = Entry{}, nil, fmt.Errorf("openapi %s: the document could not be read (parser failure: %v)", name, r)
		}
	}()
	loader := openapi3.NewLoader() // IsExternalRefsAllowed stays false
	loader.Context = context.Background()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		var ext *openapi3.DisallowedExternalRefError
		if errors.As(err, &ext) {
			return api, nil, fmt.Errorf("openapi %s: external reference %q refused (only references inside the document are allowed)", name, ext.Ref)
		}
		return api, nil, fmt.Errorf("openapi %s: %v", name, err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0") && !strings.HasPrefix(doc.OpenAPI, "3.1") {
		return api, nil, fmt.Errorf("openapi %s: field openapi is %q; want an OpenAPI 3.0 or 3.1 document", name, doc.OpenAPI)
	}
	base := serverURL(doc)
	api = Entry{Kind: KindAPI, ID: name, Source: name, Name: name, URL: base, Permission: name}
	if doc.Info != nil {
		if doc.Info.Title != "" {
			api.Name = strings.TrimSpace(doc.Info.Title)
		}
		api.Description = strings.TrimSpace(doc.Info.Description)
	}
	if doc.Paths == nil {
		return api, nil, nil
	}
	seen := map[string]string{} // operationId -> where
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		if item == nil {
			continue
		}
		ops := item.Operations()
		for _, m := range methods {
			op := ops[m]
			if op == nil {
				continue
			}
			where := m + " " + path
			id := name + "." + m + "." + path
			opName := m + " " + path
			if op.OperationID != "" {
				if prev, dup := seen[op.OperationID]; dup {
					return api, nil, fmt.Errorf("openapi %s: operationId %q of %s is already used by %s", name, op.OperationID, where, prev)
				}
				seen[op.OperationID] = where
				id = name + "." + op.OperationID
				opName = op.OperationID
			}
			e := Entry{
				Kind:        KindOperation,
				ID:          id,
				Source:      name,
				Name:        opName,
				Summary:     strings.TrimSpace(op.Summary),
				Description: strings.TrimSpace(op.Description),
				Method:      m,
				URL:         base + path,
				Parameters:  operationParams(item.Parameters, op),
				Tags:        slices.Clone(op.Tags),
				Permission:  id,
			}
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	for _, e := range entries {
		for _, t := range e.Tags {
			api.Tags = appendUnique(api.Tags, t)
		}
	}
	slices.Sort(api.Tags)
	return api, entries, nil
}

// serverURL is the first server's URL with variables at their defaults,
// without a trailing slash; "" when the document names no server.
func serverURL(doc *openapi3.T) string {
	if len(doc.Servers) == 0 || doc.Servers[0] == nil {
		return ""
	}
	s := doc.Servers[0]
	u := s.URL
	for k, v := range s.Variables {
		if v != nil {
			u = strings.ReplaceAll(u, "{"+k+"}", v.Default)
		}
	}
	return strings.TrimSuffix(u, "/")
}

// operationParams lists the parameters of an operation: the path item's,
// overridden by the operation's of the same name and location, then the
// request body's top-level JSON properties.
func operationParams(common openapi3.Parameters, op *openapi3.Operation) []Param {
	var out []Param
	index := map[string]int{}
	add := func(refs openapi3.Parameters) {
		for _, ref := range refs {
			if ref == nil || ref.Value == nil {
				continue
			}
			p := ref.Value
			desc := p.Description
			if desc == "" && p.Schema != nil && p.Schema.Value != nil {
				desc = p.Schema.Value.Description
			}
			param := Param{Name: p.Name, In: p.In, Required: p.Required, Description: strings.TrimSpace(desc)}
			key := p.In + "\x00" + p.Name
			if i, ok := index[key]; ok {
				out[i] = param
				continue
			}
			index[key] = len(out)
			out = append(out, param)
		}
	}
	add(common)
	add(op.Parameters)
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return out
	}
	media := op.RequestBody.Value.Content.Get("application/json")
	if media == nil {
		for _, ct := range slices.Sorted(maps.Keys(op.RequestBody.Value.Content)) {
			if strings.HasSuffix(ct, "+json") || strings.HasPrefix(ct, "multipart/") || ct == "application/x-www-form-urlencoded" {
				media = op.RequestBody.Value.Content[ct]
				break
			}
		}
	}
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return out
	}
	schema := media.Schema.Value
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		desc := ""
		if ps := schema.Properties[n]; ps != nil && ps.Value != nil {
			desc = strings.TrimSpace(ps.Value.Description)
		}
		out = append(out, Param{Name: n, In: "body", Required: slices.Contains(schema.Required, n), Description: desc})
	}
	return out
}
