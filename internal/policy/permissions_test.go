package policy_test

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/policy"
)

func TestAllowsHost(t *testing.T) {
	p := policy.Permissions{Hosts: []string{"api.example.com", "db.internal:5432", "*.corp.example", "[::1]:8080", "10.0.0.5"}}
	cases := []struct {
		host, port string
		want       bool
	}{
		{"api.example.com", "443", true},
		{"API.Example.COM.", "80", true},
		{"evil.example.com", "443", false},
		{"db.internal", "5432", true},
		{"db.internal", "5433", false},
		{"a.corp.example", "443", true},
		{"a.b.corp.example", "443", true},
		{"corp.example", "443", false},
		{"xcorp.example", "443", false},
		{"::1", "8080", true},
		{"::1", "80", false},
		{"10.0.0.5", "22", true},
	}
	for _, c := range cases {
		if got := p.AllowsHost(c.host, c.port); got != c.want {
			t.Errorf("AllowsHost(%q, %q) = %v, want %v", c.host, c.port, got, c.want)
		}
	}
	if (policy.Permissions{}).AllowsHost("api.example.com", "443") {
		t.Error("deny by default")
	}
	if !(policy.Permissions{Hosts: []string{"*"}}).AllowsHost("anything.example", "1") {
		t.Error("* grants every host")
	}
}

func TestOperationAndCredentialGrants(t *testing.T) {
	p := policy.Permissions{Operations: []string{"ApiCall"}, Credentials: []string{"k1"}}
	if !p.AllowsOperation("ApiCall") || p.AllowsOperation("Loop") {
		t.Error("operation grants wrong")
	}
	if !p.AllowsCredential("k1") || p.AllowsCredential("k2") {
		t.Error("credential grants wrong")
	}
	all := policy.Permissions{Operations: []string{"*"}, Credentials: []string{"*"}}
	if !all.AllowsOperation("Loop") || !all.AllowsCredential("zz") {
		t.Error("* grants all")
	}
}

func TestPermissionsValidate(t *testing.T) {
	ok := policy.Permissions{Operations: []string{"*", "ApiCall"}, Hosts: []string{"*", "api.example.com", "api.example.com:8443", "*.example.com", "10.0.0.1", "[::1]:8080"},
		CapabilityLevel: policy.LevelElevated}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		p    policy.Permissions
		path string
	}{
		{policy.Permissions{Hosts: []string{"ok.com", "a b"}}, "permissions.hosts[1]"},
		{policy.Permissions{Hosts: []string{"api.example.com:99999"}}, "permissions.hosts[0]"},
		{policy.Permissions{Hosts: []string{"api.*.com"}}, "permissions.hosts[0]"},
		{policy.Permissions{Hosts: []string{"-bad-.com"}}, "permissions.hosts[0]"},
		{policy.Permissions{Operations: []string{""}}, "permissions.operations[0]"},
		{policy.Permissions{Credentials: []string{"x\x00y"}}, "permissions.credentials[0]"},
		{policy.Permissions{CapabilityLevel: "root"}, "permissions.capability_level"},
		{policy.Permissions{Agents: make([]string, 1001)}, "permissions.agents"},
	}
	for _, c := range bad {
		err := c.p.Validate()
		fe, isFault := err.(interface{ Error() string })
		if err == nil || !isFault || !strings.HasPrefix(fe.Error(), c.path+" ") {
			t.Errorf("%+v: got %v, want an error at %s", c.p, err, c.path)
		}
	}
}
