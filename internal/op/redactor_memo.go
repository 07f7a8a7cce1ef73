package op

import (
	"slices"
	"sync/atomic"

	"github.com/sluicehq/sluice/internal/vault/redact"
)

// redactorMemo keeps the redactor of the last credential values an operation
// sent. Building one costs far more than scrubbing a response with it, and an
// operation in a loop sends the same values every time; values that changed
// (a rotated credential) get a new one.
type redactorMemo struct {
	last atomic.Pointer[memoEntry]
}

type memoEntry struct {
	values []string
	r      *redact.Redactor
}

// of returns the redactor of values (nil for none).
func (m *redactorMemo) of(values []string) *redact.Redactor {
	if len(values) == 0 {
		return nil
	}
	if e := m.last.Load(); e != nil && slices.Equal(e.values, values) {
		return e.r
	}
	r := redact.New(values...)
	m.last.Store(&memoEntry{values: values, r: r})
	return r
}
