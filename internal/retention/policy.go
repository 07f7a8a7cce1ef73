// Package retention keeps the store from growing without bound (issue 27):
// a background pass in every gateway deletes finished runs (every kind, with
// their frames and checkpoints) and audit records older than the policy,
// a small batch per transaction with a pause between, and then gives the
// freed space back (store.Retention.ReclaimSpace).
//
// The policy is the configuration's retention section, replaced at run time
// by an admin (admin.retention.update, `sluice retention set`): the change
// is kept in the store's settings, so it survives restarts and every gateway
// sharing a PostgreSQL store prunes by it from its next pass. An account's
// limits.retention_days replaces the runs' age for its own runs.
package retention

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// Policy is how long finished work is kept; 0 keeps it for ever.
type Policy struct {
	Runs  Age `json:"runs"`
	Audit Age `json:"audit"`
}

// MaxAge is the longest age a policy may have: ten years.
const MaxAge = 10 * 365 * 24 * time.Hour

// Age is a retention age: in JSON a duration string, "720h" or "30d"
// (whole days are written so), "0s" for ever.
type Age time.Duration

// Forever reports whether a keeps everything.
func (a Age) Forever() bool { return a == 0 }

// String writes whole days as "30d", other ages as Go durations.
func (a Age) String() string {
	d := time.Duration(a)
	if d != 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// ParseAge reads "30d", "720h" or "0s" and checks the bounds: 0, or from
// an hour to MaxAge.
func ParseAge(what, s string) (Age, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n < 0 || n > int64(MaxAge/(24*time.Hour)) {
			return 0, badAge(what, s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, badAge(what, s)
		}
	}
	if d != 0 && (d < time.Hour || d > MaxAge) {
		return 0, badAge(what, s)
	}
	return Age(d), nil
}

func badAge(what, s string) *fault.Error {
	if len(s) > 32 {
		s = s[:32] + "..."
	}
	return fault.New(fault.Invalid, "%s: want an age such as \"30d\" or \"720h\" (at least 1h, at most 3650d), or \"0s\" to keep for ever; got %q", what, s).
		WithDetail("path", what)
}

// MarshalJSON writes the age as its String.
func (a Age) MarshalJSON() ([]byte, error) { return json.Marshal(a.String()) }

// UnmarshalJSON reads a string ParseAge takes.
func (a *Age) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fault.New(fault.Invalid, "an age is a string such as \"30d\"")
	}
	v, err := ParseAge("age", s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// runsCutoff is when an account's runs must have finished before to go:
// days from its limits.retention_days (-1: never), else the policy's. ok is
// false when they are kept for ever.
func (p Policy) runsCutoff(now time.Time, days int) (time.Time, bool) {
	switch {
	case days < 0:
		return time.Time{}, false
	case days > 0:
		return now.Add(-time.Duration(days) * 24 * time.Hour), true
	case p.Runs.Forever():
		return time.Time{}, false
	}
	return now.Add(-time.Duration(p.Runs)), true
}
