package config

import (
	"slices"
	"sort"
)

// A2S configures A2S capability runs.
type A2S struct {
	// Audit lists, per permission level (basic, elevated, admin), the audit
	// statuses (audited, unaudited, in-progress) a capability of that level
	// may have and still run.
	Audit map[string][]string `yaml:"audit"`
	// PublicRegistry lets anyone read the registry (GET /api/v1/a2s/registry
	// without a key), so other servers may import from it.
	PublicRegistry bool `yaml:"public_registry"`
}

var (
	a2sLevels   = []string{"basic", "elevated", "admin"}
	a2sStatuses = []string{"audited", "unaudited", "in-progress"}
)

func (d *decoder) validateA2S(a A2S) {
	levels := make([]string, 0, len(a.Audit))
	for l := range a.Audit {
		levels = append(levels, l)
	}
	sort.Strings(levels)
	for _, l := range levels {
		path := "a2s.audit." + l
		if !slices.Contains(a2sLevels, l) {
			d.bad(path, "unknown permission level %q; levels are basic, elevated and admin", l)
			continue
		}
		for _, s := range a.Audit[l] {
			if !slices.Contains(a2sStatuses, s) {
				d.bad(path, "unknown audit status %q; statuses are audited, unaudited and in-progress", s)
			}
		}
	}
}
