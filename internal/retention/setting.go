package retention

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// SettingName is the store setting that keeps an admin's policy.
const SettingName = "retention.policy"

// override is the stored policy: the ages an admin set (nil: the
// configuration's) and when.
type override struct {
	Runs      *Age      `json:"runs,omitempty"`
	Audit     *Age      `json:"audit,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// over is the policy p with o's ages in place of its own.
func (o override) over(p Policy) Policy {
	if o.Runs != nil {
		p.Runs = *o.Runs
	}
	if o.Audit != nil {
		p.Audit = *o.Audit
	}
	return p
}

// loadOverride reads the stored override; none is the zero override.
func loadOverride(ctx context.Context, st store.Settings) (override, []byte, error) {
	raw, ok, err := st.GetSetting(ctx, SettingName)
	if err != nil || !ok {
		return override{}, nil, err
	}
	var o override
	if err := json.Unmarshal(raw, &o); err != nil {
		// A value this code did not write: say so, and prune by the
		// configuration rather than by a guess.
		return override{}, raw, fault.New(fault.Internal, "the stored retention policy cannot be read").WithCause(err)
	}
	return o, raw, nil
}

// Change is an admin's change of the policy: the ages given replace the
// stored ones; an Unset one drops its stored age, so the configuration's
// applies again (a given age wins over its Unset).
type Change struct {
	Runs, Audit           *Age
	UnsetRuns, UnsetAudit bool
}

// saveOverride applies c to the stored override with a compare-and-set,
// again when another gateway changed it in between.
func saveOverride(ctx context.Context, st store.Settings, c Change, now time.Time) (override, error) {
	for range 5 {
		o, old, err := loadOverride(ctx, st)
		if err != nil && old == nil {
			return override{}, err
		}
		if c.UnsetRuns {
			o.Runs = nil
		}
		if c.UnsetAudit {
			o.Audit = nil
		}
		if c.Runs != nil {
			o.Runs = c.Runs
		}
		if c.Audit != nil {
			o.Audit = c.Audit
		}
		o.UpdatedAt = now.UTC()
		value, _ := json.Marshal(o)
		if old == nil {
			stored, err := st.ClaimSetting(ctx, SettingName, value)
			if err != nil {
				return override{}, err
			}
			if string(stored) == string(value) {
				return o, nil
			}
			continue // another gateway stored one first: apply c to it
		}
		err = st.SwapSetting(ctx, SettingName, old, value)
		if fault.KindOf(err) == fault.Conflict {
			continue
		}
		return o, err
	}
	return override{}, fault.New(fault.Conflict, "the retention policy kept changing under this update; try again")
}
