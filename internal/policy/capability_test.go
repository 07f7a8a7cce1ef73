package policy_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
)

func TestCheckCapabilityRun(t *testing.T) {
	elevated := policy.Permissions{CapabilityLevel: policy.LevelElevated, Capabilities: []string{"post_social_media"}}
	cases := []struct {
		name  string
		p     policy.Permissions
		c     policy.CapabilityRun
		audit policy.AuditPolicy
		ok    bool
	}{
		{"elevated, audited, granted", elevated, policy.CapabilityRun{Level: "elevated", Capabilities: []string{"post_social_media"}, AuditStatus: "audited"}, nil, true},
		{"level too low", policy.Permissions{CapabilityLevel: "basic", Capabilities: []string{"*"}}, policy.CapabilityRun{Level: "elevated", AuditStatus: "audited"}, nil, false},
		{"no level is basic", policy.Permissions{}, policy.CapabilityRun{Level: "basic", AuditStatus: "unaudited"}, nil, true},
		{"capability not granted", elevated, policy.CapabilityRun{Level: "basic", Capabilities: []string{"delete_files"}}, nil, false},
		{"star grants all", policy.Permissions{Capabilities: []string{"*"}}, policy.CapabilityRun{Capabilities: []string{"x", "y"}}, nil, true},
		{"elevated unaudited refused by default", elevated, policy.CapabilityRun{Level: "elevated", AuditStatus: "unaudited"}, nil, false},
		{"elevated in-progress allowed by config", elevated, policy.CapabilityRun{Level: "elevated", AuditStatus: "in-progress"},
			policy.AuditPolicy{"elevated": {"audited", "in-progress"}}, true},
		{"unknown level never covered", policy.Permissions{CapabilityLevel: "admin"}, policy.CapabilityRun{Level: "root"}, nil, false},
	}
	for _, c := range cases {
		err := c.p.CheckCapabilityRun(c.c, c.audit)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
		if err != nil && fault.From(err).Kind != fault.PermissionDenied {
			t.Errorf("%s: kind %s", c.name, fault.From(err).Kind)
		}
	}
}
