package storekey_test

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/storage/storekey"
)

func TestKeyRule(t *testing.T) {
	good := []string{"a", "results", "reports/2026-01", "a/b/c.json", "ünïcode", "with space", "x..y"}
	for _, k := range good {
		if err := storekey.Check(k); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	bad := []string{"", "/etc/passwd", "../x", "a/../../x", "..", ".", "a/./b", "a//b", "a/", ".hidden",
		"nul\x00byte", `back\slash`, "ctl\nchar", strings.Repeat("k", 513), strings.Repeat("s", 256),
		strings.Repeat("a/", 16) + "a", "\xff"}
	for _, k := range bad {
		if err := storekey.Check(k); err == nil {
			t.Errorf("%q: expected an error", k)
		}
	}
}
