package capreg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/protocol/a2s"
)

var ctx = context.Background()

// atomicDoc is a lint-clean atomic capability without its checksum.
const atomicDoc = `a2s: 1.0.0
id: {ID}
description: {DESC}
version: {VERSION}
type: atomic
audit: {status: audited}
permissions: {level: basic}
services:
  api.example.com:
    type: echo
    tasks: [send]
inputs:
  message: {type: string}
outputs:
  reply: {type: string, lifecycle: session, mapping: send.outputs.reply}
tasks:
  - id: send
    type: request
    requires_service: api.example.com
    inputs:
      text: {mapping: inputs.message}
    outputs:
      reply: {type: string, lifecycle: task}
    definition:
      request: "#/requests/echo"
requests:
  echo:
    format: OpenAPI
    specification:
      openapi: 3.0.1
      info: {title: Echo, version: 1.0.0}
      servers: [{url: "https://api.example.com"}]
      paths:
        /echo:
          post: {summary: Echo}
`

// unsealed is atomicDoc for id and version, without checksum.
func unsealed(id, version, desc string) string {
	return strings.NewReplacer("{ID}", id, "{VERSION}", version, "{DESC}", desc).Replace(atomicDoc)
}

// sealed appends the document's checksum to it.
func sealed(t testing.TB, text string) []byte {
	t.Helper()
	tree, err := a2s.ParseTree([]byte(text), a2s.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := a2s.ComputeChecksum(tree)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(text + "checksum: \"" + sum + "\"\n")
}

// doc is a sealed atomic document.
func doc(t testing.TB, id, version string) []byte {
	t.Helper()
	return sealed(t, unsealed(id, version, "Echoes "+id+" "+version))
}

func checksumOf(t testing.TB, data []byte) string {
	t.Helper()
	tree, err := a2s.ParseTree(data, a2s.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := a2s.ComputeChecksum(tree)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func openStore(t testing.TB) store.Store {
	t.Helper()
	st, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newRegistry(t testing.TB, o capreg.Options) *capreg.Registry {
	t.Helper()
	if o.Store == nil {
		o.Store = openStore(t)
	}
	return capreg.New(o)
}

func publish(t testing.TB, r *capreg.Registry, ns string, data []byte) capreg.Entry {
	t.Helper()
	e, diags, err := r.Publish(ctx, data, "cap.yaml", ns, "alice")
	if err != nil {
		t.Fatalf("publish: %v %v", err, diags)
	}
	return e
}

func wantKind(t *testing.T, err error, kind fault.Kind, what string) *fault.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, kind)
	}
	fe, ok := fault.As(err)
	if !ok {
		t.Fatalf("%s: %T %v is not a *fault.Error", what, err, err)
	}
	if fe.Kind != kind {
		t.Fatalf("%s: kind %v (%v), want %v", what, fe.Kind, err, kind)
	}
	return fe
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
