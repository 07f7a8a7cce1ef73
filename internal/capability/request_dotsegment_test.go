package capability_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/vault"
)

// A request task's path parameter of ".." reaches the declared operation:
// it was sent as a dot segment, and GET /items/{id} with id ".." went to /.
func TestRequestPathParameterDotsStayInTheDeclaredPath(t *testing.T) {
	rawPaths := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rawPaths <- r.RequestURI
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"x"}`))
	}))
	defer srv.Close()
	deps := op.Deps{
		Client:      egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1"}}),
		Permissions: policy.Permissions{Operations: []string{"*"}, Hosts: []string{"127.0.0.1"}},
		Vault:       vault.NewMemory(nil),
		Cache:       cache.New(cache.Config{Clock: clock.Real{}}),
		Clock:       clock.Real{},
		Limits:      op.DefaultLimits(),
	}
	doc := parse(t, fmt.Sprintf(`a2s: 1.0.0
id: Item
version: 1.0.0
type: atomic
description: one item
audit: {status: audited}
permissions: {level: basic}
inputs:
  id: {type: string}
outputs:
  name: {type: string, lifecycle: task}
tasks:
  - id: get
    type: request
    inputs:
      id: {mapping: inputs.id}
    outputs:
      name: {type: string, lifecycle: task}
    definition: {request: "#/requests/item"}
requests:
  item:
    format: OpenAPI
    specification:
      openapi: 3.0.1
      info: {title: I, version: 1.0.0}
      servers: [{url: "%s/api"}]
      paths:
        /items/{id}:
          get:
            parameters: [{name: id, in: path, required: true, schema: {type: string}}]
            responses: {"200": {description: ok}}
`, srv.URL))
	c, err := capability.Compile(doc, capability.Options{Env: op.NewEnvironment(&deps, op.Builtins()...)})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Cache: deps.Cache})
	for id, want := range map[string]string{"..": "/api/items/%2E%2E", ".": "/api/items/%2E"} {
		r := capability.Run(context.Background(), eng, c, capability.RunOptions{Inputs: map[string]any{"id": id}})
		if r.Status != engine.StatusSuccess {
			t.Fatalf("id %q: %s %v", id, r.Status, r.Errors)
		}
		if got := <-rawPaths; got != want {
			t.Errorf("id %q: the upstream got %q, want %q", id, got, want)
		}
	}
}
