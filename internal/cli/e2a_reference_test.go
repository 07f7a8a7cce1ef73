package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

// sluice e2a normalize reads an envelope as the reference writes it: the
// tenant fields, read as the reference reads them, and a field it does not
// know, skipped as the reference skips it.
func TestE2ANormalizeReadsTheReferencesFields(t *testing.T) {
	in := `{"request_id":"r","source_agent_id":" upstream ","workspace_dir":" /data/ws ","service_id":"svc","app_id":"cli_a1","x_new":{"n":1}}`
	code, out, errOut := sluice(t, in, "e2a", "normalize", "--compact")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	cc, _ := e["channel_context"].(map[string]any)
	if e["agent_id"] != "upstream" || e["service_id"] != "svc" || e["workspace_key"] != "/data/ws" || cc["app_id"] != "cli_a1" || e["x_new"] != nil {
		t.Fatalf("normalized: %s", out)
	}
}
