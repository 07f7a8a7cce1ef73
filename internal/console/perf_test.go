package console_test

import (
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 25's figure: server time per console page with 10k runs stored on
// SQLite. A measurement, not a check (set SLUICE_CONSOLE_PERF=1; nothing is
// asserted of the figures): docs/performance.md has them.
func TestConsolePagesWithTenThousandRuns(t *testing.T) {
	if os.Getenv("SLUICE_CONSOLE_PERF") == "" {
		t.Skip("set SLUICE_CONSOLE_PERF=1 to measure")
	}
	s := newSite(t)
	r := s.api("POST", "/api/v1/admin/accounts", s.admin, map[string]any{"name": "perf",
		"permissions": map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}},
		"limits":      map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1}}, http.StatusCreated)
	key := r["api_key"].(string)
	const runs = 10000
	start := time.Now()
	var wg sync.WaitGroup
	ids := make([]string, runs)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < runs; i += 4 {
				ids[i] = s.execute(key, false, waitOp("step", 0), begin("step"))
			}
		}()
	}
	wg.Wait()
	t.Logf("%d runs stored in %v", runs, time.Since(start).Round(time.Millisecond))

	b := s.browser()
	b.signIn(key)
	// The last page's cursor, by following every page once.
	next := regexp.MustCompile(`href="/console/runs\?([^"]*cursor=[^"]*)" rel="next"`)
	deep, pages := "", 0
	for q := ""; ; pages++ {
		p := b.get("/console/runs?"+q).want(t, http.StatusOK)
		m := next.FindStringSubmatch(p.body)
		if m == nil {
			break
		}
		deep, q = strings.ReplaceAll(m[1], "&amp;", "&"), strings.ReplaceAll(m[1], "&amp;", "&")
	}
	t.Logf("%d pages of 50", pages+1)

	targets := []struct{ name, path string }{
		{"runs list, first page", "/console/runs"},
		{"runs list, last page (cursor)", "/console/runs?" + deep},
		{"runs list, filtered (status=success)", "/console/runs?status=success"},
		{"run page", ""},
	}
	const rounds, block = 10, 50
	lat := make([][]time.Duration, len(targets))
	for round := range rounds {
		for i, tg := range targets {
			for j := range block {
				path := tg.path
				if path == "" {
					path = "/console/runs/" + ids[(round*block+j)*7%runs]
				}
				t0 := time.Now()
				b.get(path).want(t, http.StatusOK)
				lat[i] = append(lat[i], time.Since(t0))
			}
		}
	}
	for i, tg := range targets {
		l := lat[i]
		slices.Sort(l)
		t.Logf("%-40s n=%d p50 %v p99 %v max %v", tg.name, len(l), l[len(l)/2].Round(10*time.Microsecond),
			l[len(l)*99/100].Round(10*time.Microsecond), l[len(l)-1].Round(10*time.Microsecond))
	}
}
