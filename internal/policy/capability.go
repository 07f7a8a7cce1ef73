package policy

import (
	"slices"

	"github.com/sluicehq/sluice/internal/fault"
)

// Who may run an A2S capability (RESOLUTIONS, A2S: "an agent runs a
// capability only if its grants cover the capability's permission level and
// capabilities"), and which audit statuses may run at each level.

// Audit statuses of capability documents.
const (
	AuditAudited    = "audited"
	AuditUnaudited  = "unaudited"
	AuditInProgress = "in-progress"
)

// levelRank orders the permission levels; an unknown level ranks above all,
// so it is never covered.
func levelRank(level string) int {
	switch level {
	case "", LevelBasic:
		return 0
	case LevelElevated:
		return 1
	case LevelAdmin:
		return 2
	}
	return 3
}

// AuditPolicy lists, per permission level, the audit statuses a capability
// of that level may have and still run.
type AuditPolicy map[string][]string

// DefaultAuditPolicy lets basic capabilities run whatever their audit status,
// and elevated and admin ones only when audited.
func DefaultAuditPolicy() AuditPolicy {
	return AuditPolicy{
		LevelBasic:    {AuditAudited, AuditUnaudited, AuditInProgress},
		LevelElevated: {AuditAudited},
		LevelAdmin:    {AuditAudited},
	}
}

// CapabilityRun is what decides a run: the document's permission level,
// the capability names it needs, and its audit status.
type CapabilityRun struct {
	Ref          string // NS/ID@version, for messages
	Level        string
	Capabilities []string
	AuditStatus  string
}

// CheckCapabilityRun says whether an account with p may run c under the
// audit policy a (nil: the default): nil, or a PermissionDenied fault that
// names what is missing.
func (p Permissions) CheckCapabilityRun(c CapabilityRun, a AuditPolicy) error {
	if a == nil {
		a = DefaultAuditPolicy()
	}
	level := c.Level
	if level == "" {
		level = LevelBasic
	}
	if levelRank(p.CapabilityLevel) < levelRank(level) {
		return fault.Typed(fault.PermissionDenied, fault.PermissionError,
			"capability %s needs permission level %s; this account has %s", c.Ref, level, orBasic(p.CapabilityLevel)).
			WithDetail("level", level).WithSuggestions("Ask an admin to raise the account's capability_level")
	}
	for _, name := range c.Capabilities {
		if !slices.Contains(p.Capabilities, name) && !slices.Contains(p.Capabilities, "*") {
			return fault.Typed(fault.PermissionDenied, fault.PermissionError,
				"capability %s needs the grant %q, which this account lacks", c.Ref, name).
				WithDetail("capability", name).WithSuggestions("Ask an admin to grant it in capabilities")
		}
	}
	status := c.AuditStatus
	if status == "" {
		status = AuditUnaudited
	}
	if !slices.Contains(a[level], status) {
		return fault.Typed(fault.PermissionDenied, fault.PermissionError,
			"capability %s is %s; this server runs %s capabilities only when %v", c.Ref, status, level, a[level]).
			WithDetail("audit_status", status)
	}
	return nil
}

func orBasic(l string) string {
	if l == "" {
		return LevelBasic
	}
	return l
}
