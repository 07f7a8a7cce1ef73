package gateway

import (
	"strings"
	"testing"
)

func TestMCPToolNames(t *testing.T) {
	long := "mcp.server." + strings.Repeat("x", 130)
	names := []string{"op.FilterData", "cap.acme/weather.today", "cap.acme_weather.today", "cap.acme/weather_today",
		"agent.bot", "mcp.files.read_file", long, "cap.ünï/côde"}
	got := mcpToolNames(names)
	for _, n := range []string{"op.FilterData", "agent.bot", "mcp.files.read_file", "cap.acme_weather.today"} {
		if got[n] != n {
			t.Errorf("%s became %s; a name that fits stays", n, got[n])
		}
	}
	// cap.acme/weather.today would be cap.acme_weather.today, which a tool
	// that fits holds: it gets the hashed form.
	if m := got["cap.acme/weather.today"]; !strings.HasPrefix(m, "cap.acme_weather.today-") || len(m) != len("cap.acme_weather.today-")+8 {
		t.Errorf("a colliding name: %s", m)
	}
	if got["cap.acme/weather_today"] != "cap.acme_weather_today" {
		t.Errorf("cap.<ns>/<id>: %s", got["cap.acme/weather_today"])
	}
	if m := got[long]; len(m) != maxMCPToolName || !validMCPToolName(m) {
		t.Errorf("a long name: %d characters, %q", len(m), m)
	}
	if m := got["cap.ünï/côde"]; !validMCPToolName(m) {
		t.Errorf("a name outside ASCII: %q", m)
	}
	seen := map[string]string{}
	for orig, m := range got {
		if !validMCPToolName(m) {
			t.Errorf("%s: %q is not a valid MCP name", orig, m)
		}
		if other, dup := seen[m]; dup {
			t.Errorf("%s and %s both became %s", orig, other, m)
		}
		seen[m] = orig
	}
	// The same list in another order gives the same names.
	rev := append([]string(nil), names...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	for orig, m := range mcpToolNames(rev) {
		if got[orig] != m {
			t.Errorf("%s: %s, then %s", orig, got[orig], m)
		}
	}
}
