package sqlstore

import (
	"context"
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/sluicehq/sluice/internal/fault"
)

// Store is the table code shared by the SQL backends. A backend embeds a
// *Store, so its methods (CreateAccount, ...) become the backend's own.
type Store struct {
	b Backend
}

// New is the table code over b.
func New(b Backend) *Store { return &Store{b: b} }

// jsonText binds JSON to a text column, kept byte for byte (text, not jsonb,
// so a value reads back exactly as it was given); empty is NULL. rawJSON
// reads it back.
//
// Neither copies: a result or checkpoint can be tens of megabytes, and a
// copy each way was a share of the heap a large execution peaks at
// (docs/performance.md, memory per byte of result). jsonText's string
// shares v's bytes: the drivers copy a bound value into their own buffers
// during the call and keep nothing, and no caller changes a value it has
// handed to the store. rawJSON's bytes are the scanned string's, which
// nothing else holds.
func jsonText(v json.RawMessage) *string {
	if len(v) == 0 {
		return nil
	}
	s := sharedText(v)
	return &s
}

// sharedText is jsonText's string of non-empty JSON, not a pointer.
func sharedText(v json.RawMessage) string { return unsafe.String(unsafe.SliceData(v), len(v)) }

func rawJSON(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	if len(*s) == 0 {
		return json.RawMessage{}
	}
	return unsafe.Slice(unsafe.StringData(*s), len(*s))
}

// prefixed qualifies each of a comma-separated column list with prefix.
func prefixed(prefix, cols string) string {
	parts := strings.Split(cols, ", ")
	for i, p := range parts {
		parts[i] = prefix + p
	}
	return strings.Join(parts, ", ")
}

func notFound(what, id string) *fault.Error {
	return fault.New(fault.NotFound, "%s %q not found", what, id)
}

// serialLock takes the dialect's serial lock of name in tx, if it has one.
func (s *Store) serialLock(ctx context.Context, tx Querier, name string) error {
	lock := s.b.SerialLock(name)
	if lock == "" {
		return nil
	}
	_, err := tx.Exec(ctx, lock)
	return err
}
