package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/engine"
)

func TestPureStepCache(t *testing.T) {
	cases := []struct {
		name      string
		cfg       string
		accounts  []string
		wantCalls int
	}{
		{"hit skips Run", `{"read":"/input/x","outputPath":"/workflow/y","cache":true}`, []string{"a", "a", "a"}, 1},
		{"cache off by default", `{"read":"/input/x","outputPath":"/workflow/y"}`, []string{"a", "a"}, 2},
		{"explicitly off", `{"read":"/input/x","outputPath":"/workflow/y","cache":false}`, []string{"a", "a"}, 2},
		{"per account", `{"read":"/input/x","outputPath":"/workflow/y","cache":true}`, []string{"a", "b", "a", "b"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakes(t)
			cache := newMemCache()
			plan := compile(t, f.env(), def("s", "Const", c.cfg), begin("", "s"))
			e := newEngine(engine.Options{Cache: cache})
			for i, acct := range c.accounts {
				rec := &recorder{}
				r := e.Run(context.Background(), plan, engine.RunOptions{Account: acct, Input: map[string]any{"x": "v"}, OnEvent: rec.on})
				if r.Status != engine.StatusSuccess || r.Results["s"] != "v" {
					t.Fatalf("run %d: %s %v", i, r.Status, r.Results)
				}
				cached := false
				for _, ev := range rec.list() {
					cached = cached || ev.Cached
				}
				if wantCached := f.count("s") < i+1; cached != wantCached {
					t.Errorf("run %d: cached event = %v, want %v", i, cached, wantCached)
				}
			}
			if got := f.count("s"); got != c.wantCalls {
				t.Errorf("Run calls = %d, want %d", got, c.wantCalls)
			}
		})
	}
}

func TestCacheKeyFollowsReadValues(t *testing.T) {
	f := newFakes(t)
	cache := newMemCache()
	plan := compile(t, f.env(), def("s", "Const", `{"read":"/input/x","outputPath":"/workflow/y","cache":true}`), begin("", "s"))
	e := newEngine(engine.Options{Cache: cache})
	for _, x := range []string{"one", "two", "one"} {
		r := e.Run(context.Background(), plan, engine.RunOptions{Account: "a", Input: map[string]any{"x": x}})
		if r.Results["s"] != x {
			t.Errorf("input %q gave %v", x, r.Results["s"])
		}
	}
	if got := f.count("s"); got != 2 {
		t.Errorf("Run calls = %d, want 2 (one per distinct input)", got)
	}
	for _, k := range cache.keys() {
		if strings.Contains(k, "one") || strings.Contains(k, "two") {
			t.Errorf("cache key %q holds a value instead of a hash", k)
		}
	}
}
