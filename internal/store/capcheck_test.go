package store_test

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func TestLaterVersion(t *testing.T) {
	for _, tc := range []struct {
		current, candidate string
		later              bool
	}{
		{"", "0.0.1-alpha", true},
		{"1.0.0", "1.0.1", true},
		{"1.0.1", "1.0.0", false},
		{"1.9.0", "1.10.0", true}, // numeric, not text, order
		{"1.0.0", "1.0.0", false},
		{"1.0.0", "2.0.0-beta.1", false}, // a release beats any prerelease
		{"2.0.0-beta.1", "1.0.0", true},
		{"2.0.0-beta.1", "2.0.0-beta.2", true},
		{"2.0.0-beta.10", "2.0.0-beta.9", false},
		{"2.0.0-rc.1", "2.0.0", true},
	} {
		if got := store.LaterVersion(tc.current, tc.candidate); got != tc.later {
			t.Errorf("LaterVersion(%q, %q) = %v", tc.current, tc.candidate, got)
		}
	}
}

func TestCapabilityNames(t *testing.T) {
	for _, ns := range []string{"default", "core/weather", "a-b/c_d/0", strings.TrimSuffix(strings.Repeat("a/", store.MaxCapabilityNamespaceSegments), "/")} {
		if err := store.CheckCapabilityNamespace("namespace", ns); err != nil {
			t.Errorf("namespace %q: %v", ns, err)
		}
	}
	for _, id := range []string{"Weather", "weather_v2", "a.b-c", "_x", "9lives"} {
		if err := store.CheckCapabilityID("id", id); err != nil {
			t.Errorf("id %q: %v", id, err)
		}
	}
	for _, v := range []string{"0.0.0", "1.2.3-rc.1", "10.20.30-alpha-1.x"} {
		if err := store.CheckCapabilityVersion("version", v); err != nil {
			t.Errorf("version %q: %v", v, err)
		}
	}
	err := store.CheckCapabilityNamespace("--namespace", "Core")
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.Invalid || fe.Details["field"] != "--namespace" || !strings.HasPrefix(fe.Message, "--namespace: ") {
		t.Fatalf("a bad namespace: %v", err)
	}
	for _, p := range []struct{ in, out string }{{"", ""}, {"/", ""}, {"core/", "core"}, {"core/weather", "core/weather"}} {
		got, err := store.CheckCapabilityPrefix(p.in)
		if err != nil || got != p.out {
			t.Errorf("prefix %q: %q %v", p.in, got, err)
		}
	}
}

// FuzzCapabilityCursor: a cursor either reads back into the names it was
// made of or is refused as a bad cursor; never a panic.
func FuzzCapabilityCursor(f *testing.F) {
	for _, s := range []string{"", "core/weather/Weather", "default/Hello", "a", "/", "a/", "/b", "A/b", "a//b/c", "a/b/.c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		ns, id, err := store.ParseCapabilityCursor(c)
		if err != nil {
			if fault.KindOf(err) != fault.Invalid {
				t.Fatalf("cursor %q: %v is not Invalid", c, err)
			}
			return
		}
		if c == "" {
			if ns != "" || id != "" {
				t.Fatalf("the empty cursor read as %q %q", ns, id)
			}
			return
		}
		if store.CapabilityCursor(ns, id) != c {
			t.Fatalf("cursor %q read as %q %q", c, ns, id)
		}
		if store.CheckCapabilityNamespace("namespace", ns) != nil || store.CheckCapabilityID("id", id) != nil {
			t.Fatalf("cursor %q accepted unchecked names %q %q", c, ns, id)
		}
	})
}
