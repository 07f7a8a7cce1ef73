package datamodel

import (
	"sync/atomic"

	"github.com/sluicehq/sluice/internal/fault"
)

// DefaultDataBytes is the data budget of an execution whose account and
// server set none: 64 MiB.
const DefaultDataBytes int64 = 64 << 20

// Budget bounds the data one execution produces and holds: every value an
// operation adds to the data model or to the results is charged, by its
// estimated heap size (Size), before it is allocated when its size can be
// known and right after otherwise. Charges are never given back while the
// execution runs, so the budget bounds the peak of what it holds (data
// replaced during the run still counts); when it is over, the execution fails
// and its data is dropped. A nil *Budget has no limit and counts nothing, for
// operations run without an engine. Safe for concurrent use (concurrent loop
// iterations charge one budget).
type Budget struct {
	limit int64 // <= 0: no limit
	used  atomic.Int64
}

// NewBudget makes a budget of limit bytes; limit <= 0 counts without a limit.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Limit is the budget in bytes (<= 0: none).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is what has been charged so far.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Charge counts n more bytes for operation what. Going over the limit is a
// DataError naming the operation, the budget and the size reached; the bytes
// stay charged, so every later charge fails too.
func (b *Budget) Charge(what string, n int64) error {
	if b == nil || n <= 0 {
		return nil
	}
	reached := b.used.Add(n)
	if b.limit > 0 && reached > b.limit {
		return OverBudget(what, b.limit, reached)
	}
	return nil
}

// ChargeValue charges the estimated size of v, walking v no further than
// the rest of the budget (SizeUpTo): a value over it fails the charge
// without being walked whole.
func (b *Budget) ChargeValue(what string, v any) error {
	if b == nil {
		return nil
	}
	return b.Charge(what, b.SizeOf(v, 0))
}

// SizeOf is the estimated size of v, walked no further than the rest of the
// budget plus credit (bytes charged for v before, which the caller takes off
// again): past that it is some size that fails the charge.
func (b *Budget) SizeOf(v any, credit int64) int64 {
	if b == nil || b.limit <= 0 {
		return Size(v)
	}
	return SizeUpTo(v, max(b.limit-b.used.Load()+credit, 0))
}

// OverBudget is the DataError of an execution whose data went over its budget.
func OverBudget(what string, limit, reached int64) *fault.Error {
	return fault.Typed(fault.TooLarge, fault.DataError,
		"operation %q took the execution's data to %d bytes, over its data budget of %d bytes", what, reached, limit).
		WithOp(what).WithDetail("dataBudgetBytes", limit).WithDetail("reachedBytes", reached).
		WithSuggestions("Work on less data (paging, filters, fields), or ask an administrator for a higher limits.max_data_bytes")
}

// Over reports whether the budget has been exceeded: the execution must stop.
func (b *Budget) Over() bool {
	return b != nil && b.limit > 0 && b.used.Load() > b.limit
}
