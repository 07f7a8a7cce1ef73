package storage

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// StoredLocal keeps localStorage in the store (store.KV), so StoreData and
// LoadData values survive restarts. Route only localStorage to it (e.g.
// Mux{Local: StoredLocal{KV: s}, ...}); other areas are refused.
type StoredLocal struct {
	KV store.KV
}

var _ op.Storage = StoredLocal{}

// Put stores value as JSON under the account's key.
func (l StoredLocal) Put(ctx context.Context, a op.Area, key string, value any) error {
	if err := checkLocalArea(a, key); err != nil {
		return err
	}
	data, err := json.Marshal(value)
	if err != nil {
		return fault.Typed(fault.Invalid, fault.DataError, "the value cannot be stored as JSON").WithCause(err)
	}
	return l.KV.PutKV(ctx, a.Account, key, data)
}

// Get reads a value back as a plain JSON value (numbers are float64, as in the
// data model).
func (l StoredLocal) Get(ctx context.Context, a op.Area, key string) (any, bool, error) {
	if err := checkLocalArea(a, key); err != nil {
		return nil, false, err
	}
	data, ok, err := l.KV.GetKV(ctx, a.Account, key)
	if err != nil || !ok {
		return nil, false, err
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&v); err != nil {
		return nil, false, fault.New(fault.Internal, "stored value of key %q is unreadable", key).WithCause(err)
	}
	return v, true, nil
}

// checkLocalArea refuses an area other than localStorage, an account the
// store cannot key values by, and a key that breaks the storage rule (the
// store's own check, made before the value is encoded so that a bad key is
// the error reported).
func checkLocalArea(a op.Area, key string) error {
	if a.Storage != a2e.StorageLocal {
		return fault.New(fault.Internal, "storage %q is not kept in the store", a.Storage).
			WithDetail("storage", a.Storage)
	}
	if err := store.CheckID("account id", a.Account); err != nil {
		return fault.New(fault.Internal, "storage cannot be used by this account").WithCause(err)
	}
	return store.CheckKV(a.Account, key, nil, false)
}
