package storage_test

import (
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/storage"
)

// On every backend, StoredLocal keeps an account's values from the others,
// applies the storage key rule of StoreData with a DataError, and refuses
// what is not its own: other storages, no account, a value that is not JSON.
func TestStoredLocalOnBackends(t *testing.T) {
	for name, st := range storesOn(t, nil) {
		t.Run(name, func(t *testing.T) {
			var ls op.Storage = storage.StoredLocal{KV: st}
			value := map[string]any{"n": 1.5, "list": []any{"a", true, nil}}
			must(t, ls.Put(ctx, local("a"), "cfg/main", value))
			got, ok, err := ls.Get(ctx, local("a"), "cfg/main")
			must(t, err)
			if !ok || fmt.Sprint(got) != fmt.Sprint(value) {
				t.Fatalf("got %v %v", got, ok)
			}
			if _, ok, _ := ls.Get(ctx, local("b"), "cfg/main"); ok {
				t.Fatal("b reads a's value")
			}
			if _, ok, err := ls.Get(ctx, local("a"), "nope"); ok || err != nil {
				t.Fatalf("missing key: %v %v", ok, err)
			}
			err = ls.Put(ctx, local("a"), "../escape", 1)
			if fe, ok := fault.As(err); !ok || fe.Kind != fault.Invalid || fe.SpecType() != fault.DataError {
				t.Fatalf("escaping key: %v, want an Invalid DataError", err)
			}
			for what, err := range map[string]error{
				"sessionStorage": ls.Put(ctx, session("a", "s"), "k", 1),
				"no account":     ls.Put(ctx, local(""), "k", 1),
			} {
				if fault.KindOf(err) != fault.Internal {
					t.Errorf("%s: %v, want Internal", what, err)
				}
			}
			if err := ls.Put(ctx, local("a"), "k", func() {}); fault.KindOf(err) != fault.Invalid {
				t.Errorf("a value that is not JSON: %v", err)
			}
		})
	}
}
