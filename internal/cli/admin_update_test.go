package cli_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

// `accounts update` changes what its flags name and nothing else: before,
// --knowledge-bases X replaced the whole permission set with that grant.
func TestAccountsUpdateChangesOnlyItsFlags(t *testing.T) {
	adminServer(t)
	code, out, errOut := sluice(t, "", "accounts", "create", "--name", "kb bot", "--operations", "ApiCall,FilterData",
		"--hosts", "api.example.com", "--credentials", "weather", "--limit", "requests_per_minute=120")
	if code != cli.ExitOK {
		t.Fatalf("create: %d %s %s", code, out, errOut)
	}
	var created struct {
		AgentID string `json:"agent_id"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	type account struct {
		Permissions struct {
			Operations, Hosts, Credentials []string
			KnowledgeBasesJSON             []string `json:"knowledge_bases"`
			CapabilityLevel                string   `json:"capability_level"`
		}
		Limits map[string]int
	}
	update := func(args ...string) account {
		t.Helper()
		code, out, errOut := sluice(t, "", append([]string{"accounts", "update", created.AgentID}, args...)...)
		if code != cli.ExitOK {
			t.Fatalf("update %q: %d %s %s", args, code, out, errOut)
		}
		var a account
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("update %q: %v\n%s", args, err, out)
		}
		return a
	}

	a := update("--knowledge-bases", "kb1")
	p := a.Permissions
	if !slices.Equal(p.KnowledgeBasesJSON, []string{"kb1"}) || !slices.Equal(p.Operations, []string{"ApiCall", "FilterData"}) ||
		!slices.Equal(p.Hosts, []string{"api.example.com"}) || !slices.Equal(p.Credentials, []string{"weather"}) ||
		p.CapabilityLevel != "basic" || a.Limits["requests_per_minute"] != 120 {
		t.Fatalf("after --knowledge-bases kb1: %+v", a)
	}
	a = update("--limit", "max_operations=50")
	if a.Limits["requests_per_minute"] != 120 || a.Limits["max_operations"] != 50 || !slices.Equal(a.Permissions.Hosts, []string{"api.example.com"}) {
		t.Fatalf("after --limit max_operations=50: %+v", a)
	}
	// A list flag given empty empties that list only.
	a = update("--hosts", "")
	if len(a.Permissions.Hosts) != 0 || !slices.Equal(a.Permissions.KnowledgeBasesJSON, []string{"kb1"}) || !slices.Equal(a.Permissions.Operations, []string{"ApiCall", "FilterData"}) {
		t.Fatalf("after --hosts '': %+v", a)
	}
}
