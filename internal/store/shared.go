package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/storage/storekey"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// The parts below hold what one process used to keep in memory, so that
// gateways sharing a store (PostgreSQL) share it too: rate-limit counts and
// concurrent-execution slots (internal/ratelimit's shared mode), the values of
// sessionStorage and file storage (internal/storage), and settings every
// process must agree on (the fingerprints of the vault master key and the API
// key pepper). SQLite implements them as well, so the contract is one.

// RateWindow is one fixed window a call counts against: Kind names it (e.g.
// "requests_per_minute"), Start and End bound it, and Limit is its ceiling
// (<= 0: counted, never refused).
type RateWindow struct {
	Kind  string
	Start time.Time
	End   time.Time
	Limit int64
}

// RateBucket is a token bucket kept as one instant, its theoretical arrival
// time (GCRA): it holds at most Burst tokens and gains one every Interval. It
// is full when the instant is not after now; a call of N tokens passes when
// the instant plus N intervals stays within Burst intervals of now, and moves
// the instant on by N intervals.
type RateBucket struct {
	Kind     string
	Interval time.Duration
	Burst    int64
}

// RateTake asks to count N calls of an account at At in every window and in
// the bucket (when set). N 0 only reads.
type RateTake struct {
	AccountID string
	At        time.Time
	Windows   []RateWindow
	Bucket    *RateBucket
	N         int64
}

// RateTaken is the answer to a RateTake: whether the calls were counted, and
// the counts of the windows (in the order asked; after the call when taken,
// as they stand when refused) and the bucket's instant (zero without a
// bucket, or when it is full).
type RateTaken struct {
	Taken  bool
	Counts []int64
	TAT    time.Time
}

// Allows is the GCRA test of a RateBucket: whether a bucket whose instant is
// tat can give n tokens at at, and its instant afterwards.
func (b RateBucket) Allows(tat, at time.Time, n int64) (bool, time.Time) {
	if tat.Before(at) {
		tat = at
	}
	next := tat.Add(time.Duration(n) * b.Interval)
	return next.Sub(at) <= time.Duration(b.Burst)*b.Interval, next
}

// SlotTake asks for one of an account's concurrent-execution slots: SlotID
// (unique, chosen by the caller) holds it until Expires unless renewed. Max
// <= 0 records the slot without a limit.
type SlotTake struct {
	AccountID string
	SlotID    string
	Max       int
	At        time.Time
	Expires   time.Time
}

// SharedLimits keeps rate-limit counts and concurrent-execution slots that
// every process sharing the store enforces together. Each call is one atomic
// step across processes.
type SharedLimits interface {
	// TakeRate counts N calls in every window (and the bucket) when each
	// window with a limit stays within it and the bucket has N tokens;
	// otherwise it counts nothing. Windows of the account that ended at or
	// before At are dropped as a side effect.
	TakeRate(ctx context.Context, t RateTake) (RateTaken, error)
	// TakeSlot records a slot unless Max slots of the account are held at
	// At (slots past their expiry do not count and are dropped). It returns
	// how many are held, this one included when taken. Taking an id that is
	// held already renews it.
	TakeSlot(ctx context.Context, s SlotTake) (held int, taken bool, err error)
	// RenewSlots moves the expiry of the given slots (unknown ids are
	// skipped), so a process keeps the slots of executions it still runs.
	RenewSlots(ctx context.Context, slotIDs []string, expires time.Time) error
	// ReleaseSlot drops a slot; an unknown id is no error.
	ReleaseSlot(ctx context.Context, slotID string) error
	// CountSlots is how many slots of the account are held at at.
	CountSlots(ctx context.Context, accountID string, at time.Time) (int, error)
}

// Bounds of the shared parts.
const (
	MaxRateWindows      = 16
	MaxSlotsRenewed     = 10_000
	MaxValuesPerScope   = 10_000
	MaxValueScopeBytes  = 256 // a session id
	MaxSettingNameBytes = 128
	MaxSettingBytes     = 4096
)

// CheckRateTake checks a RateTake.
func CheckRateTake(t RateTake) error {
	if err := CheckID("account id", t.AccountID); err != nil {
		return err
	}
	if t.At.IsZero() {
		return invalid("at", "is required")
	}
	if len(t.Windows) > MaxRateWindows {
		return invalid("windows", "%d at once, over the limit of %d", len(t.Windows), MaxRateWindows)
	}
	seen := map[string]bool{}
	for i, w := range t.Windows {
		at := func(f string) string { return fmt.Sprintf("windows[%d].%s", i, f) }
		if err := CheckText(at("kind"), w.Kind, MaxNameBytes, true); err != nil {
			return err
		}
		if seen[w.Kind] {
			return invalid(at("kind"), "%q is asked twice", w.Kind)
		}
		seen[w.Kind] = true
		if w.Start.IsZero() || !w.Start.Before(w.End) {
			return invalid(at("end"), "must be after start")
		}
	}
	if b := t.Bucket; b != nil {
		if err := CheckText("bucket.kind", b.Kind, MaxNameBytes, true); err != nil {
			return err
		}
		if seen[b.Kind] {
			return invalid("bucket.kind", "%q is also a window", b.Kind)
		}
		if b.Interval <= 0 || b.Burst <= 0 {
			return invalid("bucket", "interval and burst must be positive")
		}
	}
	if t.N < 0 {
		return invalid("n", "must not be negative")
	}
	return nil
}

// CheckSlotTake checks a SlotTake.
func CheckSlotTake(s SlotTake) error {
	if err := CheckID("account id", s.AccountID); err != nil {
		return err
	}
	if err := CheckID("slot id", s.SlotID); err != nil {
		return err
	}
	if s.At.IsZero() || !s.At.Before(s.Expires) {
		return invalid("expires", "must be after at")
	}
	return nil
}

// CheckSlotIDs checks the ids of a renewal.
func CheckSlotIDs(ids []string) error {
	if len(ids) > MaxSlotsRenewed {
		return invalid("slot ids", "%d at once, over the limit of %d", len(ids), MaxSlotsRenewed)
	}
	for i, id := range ids {
		if err := CheckID(fmt.Sprintf("slotIds[%d]", i), id); err != nil {
			return err
		}
	}
	return nil
}

// Value is one value of sessionStorage (Scope is the session, or the
// execution when the caller named none) or of file storage (Scope is "").
type Value struct {
	Area      string // a2e.StorageSession or a2e.StorageFile
	AccountID string
	Scope     string
	Key       string
	Value     json.RawMessage
	// ExpiresAt is when the value is gone (zero: never).
	ExpiresAt time.Time
}

// Values keeps the values of sessionStorage and file storage.
type Values interface {
	// PutValue stores a value, replacing the one under the same area,
	// account, scope and key. A scope holds at most MaxValuesPerScope live
	// keys; an unknown account is NotFound.
	PutValue(ctx context.Context, v Value) error
	// GetValue returns a value and whether it exists; an expired value does
	// not.
	GetValue(ctx context.Context, area, accountID, scope, key string) (json.RawMessage, bool, error)
	// PruneValues deletes the values that expired at or before now and says
	// how many went.
	PruneValues(ctx context.Context, now time.Time) (int64, error)
}

// CheckValueRef checks where a value is kept.
func CheckValueRef(area, accountID, scope, key string) error {
	switch area {
	case a2e.StorageSession:
		if err := CheckText("session id", scope, MaxValueScopeBytes, true); err != nil {
			return err
		}
	case a2e.StorageFile:
		if scope != "" {
			return invalid("scope", "must be empty for file storage")
		}
	default:
		return invalid("area", "%q is not kept in the store; use %s or %s", truncate(area), a2e.StorageSession, a2e.StorageFile)
	}
	if err := CheckID("account id", accountID); err != nil {
		return err
	}
	if err := storekey.Check(key); err != nil {
		return fault.Typed(fault.Invalid, fault.DataError, "invalid %s key: %s", area, err.Error()).
			WithDetail("storage", area).WithDetail("key", truncate(key))
	}
	return nil
}

// CheckValue checks a value to store.
func CheckValue(v Value) error {
	if err := CheckValueRef(v.Area, v.AccountID, v.Scope, v.Key); err != nil {
		return err
	}
	return CheckJSON("value", v.Value, MaxKVValueBytes, true)
}

// ValuesFull is the error when a scope of sessionStorage or file storage
// holds MaxValuesPerScope keys.
func ValuesFull(area string) *fault.Error {
	return fault.Typed(fault.Invalid, fault.ExecutionError, "%s is full: at most %d keys", area, MaxValuesPerScope).
		WithDetail("storage", area).WithSuggestions("Reuse keys or store fewer, larger values")
}

// Settings keeps small values every process sharing the store must agree on.
type Settings interface {
	// ClaimSetting stores value under name unless a value is stored, and
	// returns the stored value (value itself when it was claimed now).
	ClaimSetting(ctx context.Context, name string, value []byte) (stored []byte, err error)
	// SwapSetting replaces the value under name when it is old; otherwise
	// nothing changes and the error is a Conflict (NotFound when unset).
	SwapSetting(ctx context.Context, name string, old, value []byte) error
	// GetSetting returns the value under name and whether there is one.
	GetSetting(ctx context.Context, name string) (value []byte, ok bool, err error)
}

// CheckSetting checks a setting's name and value.
func CheckSetting(name string, value []byte) error {
	if err := CheckID("setting name", name); err != nil {
		return err
	}
	return CheckBytes("setting value", value, MaxSettingBytes, true)
}

// DecideRate is the rule of TakeRate over the state before the call (the
// windows' counts in t's order and the bucket's stored instant, zero when
// none): whether the calls pass, and the answer with the state after.
// Implementations that decide elsewhere (in SQL) use Settle for the answer.
func DecideRate(t RateTake, counts []int64, tat time.Time) RateTaken {
	ok := true
	for i, w := range t.Windows {
		if w.Limit > 0 && counts[i]+t.N > w.Limit {
			ok = false
		}
	}
	if t.Bucket != nil {
		if pass, _ := t.Bucket.Allows(tat, t.At, t.N); !pass {
			ok = false
		}
	}
	return Settle(t, ok, counts, tat)
}

// Settle is the answer of TakeRate once decided: the state after the call
// when taken (counts plus N, the bucket's instant moved on), else as it was.
func Settle(t RateTake, taken bool, counts []int64, tat time.Time) RateTaken {
	out := RateTaken{Taken: taken, Counts: append([]int64(nil), counts...)}
	if taken && t.N > 0 {
		for i := range out.Counts {
			out.Counts[i] += t.N
		}
	}
	if t.Bucket == nil {
		return out
	}
	out.TAT = tat
	if taken && t.N > 0 {
		_, out.TAT = t.Bucket.Allows(tat, t.At, t.N)
	}
	if !out.TAT.After(t.At) {
		out.TAT = time.Time{} // full
	}
	return out
}

// SettingChanged is the Conflict of a SwapSetting whose old value is not the
// stored one.
func SettingChanged(name string) *fault.Error {
	return fault.New(fault.Conflict, "setting %q was changed by another process", name)
}
