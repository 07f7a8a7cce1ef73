package vault_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/vault"
)

func TestPlaintextJSON(t *testing.T) {
	var e vault.Entry
	if err := json.Unmarshal([]byte(`{"id":"gh","type":"bearer-token","value":"ghp_secret_value_1"}`), &e); err != nil {
		t.Fatal(err)
	}
	if e.Value.Reveal() != "ghp_secret_value_1" || e.ID != "gh" {
		t.Fatalf("decoded %v", e)
	}
	b, _ := json.Marshal(e)
	if strings.Contains(string(b), "ghp_secret") || !strings.Contains(string(b), `"value":"[REDACTED]"`) {
		t.Fatalf("encoded %s", b)
	}
	if err := json.Unmarshal([]byte(`{"value":42}`), &e); err == nil {
		t.Fatal("a non-string value must be refused")
	}
}
