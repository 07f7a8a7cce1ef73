package sqlstore

import (
	"context"
	"encoding/json"
	"strings"

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
func jsonText(v json.RawMessage) *string {
	if len(v) == 0 {
		return nil
	}
	s := string(v)
	return &s
}

func rawJSON(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
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
