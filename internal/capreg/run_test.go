package capreg_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2s"
)

const doubleDoc = `a2s: 1.0.0
id: Double
version: {VERSION}
type: atomic
description: doubles
audit: {status: audited}
permissions: {level: basic}
inputs:
  n: {type: number}
outputs:
  twice: {type: number, lifecycle: task}
tasks:
  - id: calc
    type: agent_decision
    inputs:
      n: {mapping: inputs.n}
    outputs:
      twice: {type: number, lifecycle: task}
    definition:
      logic: |
        twice = n * {FACTOR}
`

const quadDoc = `a2s: 1.0.0
id: Quad
version: 1.0.0
type: aggregate
description: quadruples
registries:
  remote: {URL}
dependencies:
  dbl:
    namespace: math
    id: Double
    version: "^1.0.0"
    {REGISTRY}
inputs:
  n: {type: number}
outputs:
  result:
    type: number
    mapping: second.outputs.twice
tasks:
  - id: first
    type: capability
    inputs:
      n: {mapping: inputs.n}
    outputs:
      twice: {type: number}
    definition: {capability: dbl}
  - id: second
    type: capability
    inputs:
      n: {mapping: first.outputs.twice}
    outputs:
      twice: {type: number}
    definition: {capability: dbl}
`

// An aggregate runs with its dependency resolved from the registry: the
// highest 1.x, not 2.0.0 (which would multiply by 3), locally and from a
// remote registry reached through the egress client.
func TestRunImportsFromRegistry(t *testing.T) {
	publishDouble := func(r *capreg.Registry) {
		for _, v := range []struct{ version, factor string }{{"1.0.0", "2"}, {"1.1.0", "2"}, {"2.0.0", "3"}} {
			text := strings.NewReplacer("{VERSION}", v.version, "{FACTOR}", v.factor).Replace(doubleDoc)
			publish(t, r, "math", sealed(t, text))
		}
	}
	remote := &remoteRegistry{reg: newRegistry(t, capreg.Options{})}
	publishDouble(remote.reg)
	srv := httptest.NewServer(remote)
	defer srv.Close()

	local := newRegistry(t, capreg.Options{Client: egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1"}})})
	publishDouble(local)

	for _, registry := range []string{"", "registry: registries.remote"} {
		text := strings.NewReplacer("{URL}", srv.URL, "{REGISTRY}", registry).Replace(quadDoc)
		doc, diags := a2s.LintBytes([]byte(text), a2s.Options{File: "quad.yaml"})
		if a2s.HasErrors(diags) {
			t.Fatalf("quad: %v", diags)
		}
		eng := engine.New(engine.Options{})
		env := op.NewEnvironment(&op.Deps{Limits: op.DefaultLimits()}, op.Builtins()...)
		c, err := capability.Compile(doc, capability.Options{Env: env, Imports: local.Importer(doc), Nested: eng})
		if err != nil {
			t.Fatal(err)
		}
		before := remote.requests.Load()
		res := capability.Run(ctx, eng, c, capability.RunOptions{Inputs: map[string]any{"n": 3.0}})
		if res.Status != engine.StatusSuccess || res.Outputs["result"] != 12.0 {
			t.Fatalf("registry %q: status %s outputs %v errors %v", registry, res.Status, res.Outputs, res.Errors)
		}
		if asked := remote.requests.Load() - before; (registry == "") != (asked == 0) {
			t.Errorf("registry %q: the remote was asked %d times", registry, asked)
		}
	}
}
