package store

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/storage/storekey"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// LocalStorage adapts KV to op.Storage for the localStorage area, so StoreData
// and LoadData values survive restarts. Route only localStorage to it (e.g.
// storage.Mux{Local: store.LocalStorage{KV: s}, ...}); other areas are refused.
type LocalStorage struct {
	KV KV
}

var _ op.Storage = LocalStorage{}

// Put stores value as JSON under the account's key.
func (l LocalStorage) Put(ctx context.Context, a op.Area, key string, value any) error {
	if err := checkArea(a); err != nil {
		return err
	}
	if err := checkStorageKey(key); err != nil {
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
func (l LocalStorage) Get(ctx context.Context, a op.Area, key string) (any, bool, error) {
	if err := checkArea(a); err != nil {
		return nil, false, err
	}
	if err := checkStorageKey(key); err != nil {
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

func checkArea(a op.Area) error {
	if a.Storage != a2e.StorageLocal {
		return fault.New(fault.Internal, "storage %q is not kept in the store", a.Storage).
			WithDetail("storage", a.Storage)
	}
	if err := CheckID("account id", a.Account); err != nil {
		return fault.New(fault.Internal, "storage cannot be used by this account").WithCause(err)
	}
	return nil
}

// checkStorageKey applies the storage key rule that StoreData, LoadData and
// the other storages share.
func checkStorageKey(key string) error {
	if err := storekey.Check(key); err != nil {
		return fault.Typed(fault.Invalid, fault.DataError, "invalid %s key: %s", a2e.StorageLocal, err.Error()).
			WithDetail("storage", a2e.StorageLocal).WithDetail("key", truncate(key)).
			WithSuggestions("Keys are relative names such as results or reports/2026-01, without '..' or a leading '/'")
	}
	return nil
}
