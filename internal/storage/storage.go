// Package storage holds the backends of StoreData and LoadData: Memory for
// localStorage and sessionStorage, Files for the file storage, and Mux, which
// routes each op.Area to its backend. Every backend scopes keys by account, so
// one account can never read or overwrite another's values.
package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/storage/storekey"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Mux routes an area to the backend for its storage. A nil backend means that
// storage is not configured on this server.
type Mux struct {
	Local   op.Storage // localStorage
	Session op.Storage // sessionStorage
	File    op.Storage // file
}

// NewMux routes localStorage and sessionStorage to one Memory and file to files
// (nil: no file storage).
func NewMux(mem *Memory, files op.Storage) *Mux {
	return &Mux{Local: mem, Session: mem, File: files}
}

func (m *Mux) route(a op.Area) (op.Storage, error) {
	var s op.Storage
	switch a.Storage {
	case a2e.StorageLocal:
		s = m.Local
	case a2e.StorageSession:
		s = m.Session
	case a2e.StorageFile:
		s = m.File
	default:
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "unknown storage %q", a.Storage).
			WithSuggestions("Use localStorage, sessionStorage or file")
	}
	if s == nil {
		return nil, fault.Typed(fault.Unavailable, fault.ExecutionError, "storage %q is not configured on this server", a.Storage).
			WithDetail("storage", a.Storage)
	}
	return s, nil
}

// Put stores value in the area's backend.
func (m *Mux) Put(ctx context.Context, a op.Area, key string, value any) error {
	s, err := m.route(a)
	if err != nil {
		return err
	}
	return s.Put(ctx, a, key, value)
}

// Get reads a value from the area's backend.
func (m *Mux) Get(ctx context.Context, a op.Area, key string) (any, bool, error) {
	s, err := m.route(a)
	if err != nil {
		return nil, false, err
	}
	return s.Get(ctx, a, key)
}

// checkArea refuses an area without an account, and a key that breaks the rule.
func checkArea(a op.Area, key string) error {
	if err := checkAccount(a.Account); err != nil {
		return err
	}
	return checkKey(a.Storage, key)
}

func checkKey(storage, key string) error {
	if err := storekey.Check(key); err != nil {
		return fault.Typed(fault.Invalid, fault.DataError, "invalid %s key: %s", storage, err.Error()).
			WithDetail("storage", storage).WithDetail("key", truncateKey(key)).
			WithSuggestions("Keys are relative names such as results or reports/2026-01, without '..' or a leading '/'")
	}
	return nil
}

// checkAccount makes sure the account can name a folder: the account comes from
// authentication, not from the workflow, but the folder rule is enforced anyway.
func checkAccount(account string) error {
	if account == "" {
		return fault.New(fault.Internal, "storage needs an account").WithCause(fmt.Errorf("storage: empty account"))
	}
	if err := storekey.Check(account); err != nil || strings.Contains(account, "/") {
		return fault.New(fault.Internal, "storage cannot be used by this account").
			WithCause(fmt.Errorf("storage: account %q is not a valid folder name", account))
	}
	return nil
}

func truncateKey(k string) string {
	if len(k) > 100 {
		return strings.ToValidUTF8(k[:100], "") + "…"
	}
	return k
}
