package policy_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
)

func TestCredentialHosts(t *testing.T) {
	got, err := policy.NormalizeCredentialHosts([]string{"API.Example.com.", "api.example.com", "h:8443", "*.svc.example", "[::1]:9000", "::2"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"*.svc.example", "[::1]:9000", "[::2]", "api.example.com", "h:8443"}
	if !slices.Equal(got, want) {
		t.Fatalf("normalized %q, want %q", got, want)
	}
	for _, c := range []struct {
		host, port string
		ok         bool
	}{
		{"api.example.com", "443", true}, {"API.EXAMPLE.COM.", "80", true}, {"h", "8443", true}, {"h", "443", false},
		{"a.svc.example", "443", true}, {"svc.example", "443", false}, {"::1", "9000", true}, {"::2", "1", true},
		{"evil.example.com", "443", false}, {"127.0.0.1", "443", false},
	} {
		if ok := policy.CredentialMaySend(got, c.host, c.port); ok != c.ok {
			t.Errorf("%s:%s: %v, want %v", c.host, c.port, ok, c.ok)
		}
	}
	if !policy.CredentialMaySend(nil, "anywhere.example", "443") {
		t.Fatal("an unbound credential (a record of an earlier version) may go anywhere the account may reach")
	}
	for _, bad := range [][]string{{"*"}, {""}, {"a b"}, {"h:0"}, {"a*.b"}, make([]string, policy.MaxCredentialHosts+1)} {
		if _, err := policy.NormalizeCredentialHosts(bad); fault.KindOf(err) != fault.Invalid {
			t.Errorf("%q: got %v, want Invalid", bad, err)
		}
	}
	fe := policy.CredentialHostDenied("gh", got, "evil.example.com", "443")
	if fe.Type != fault.PermissionError || !strings.Contains(fe.Message, `"gh"`) || !strings.Contains(fe.Message, "evil.example.com:443") {
		t.Fatalf("error %+v", fe)
	}
}
