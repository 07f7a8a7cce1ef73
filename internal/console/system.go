package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// The admin's system page: the server's counters (admin.stats.get), the
// run queue as the run list counts it, one account's rate-limit windows,
// and charts the page's script draws from the counters as it polls them.

// stats is admin.stats.get's answer, as far as the page reads it.
type stats struct {
	Requests    float64            `json:"requests"`
	Errors      float64            `json:"errors"`
	RateLimited float64            `json:"rate_limited"`
	Executions  map[string]float64 `json:"executions"`
	HTTP        map[string]float64 `json:"http_responses"`
	LatencyMs   map[string]float64 `json:"latency_ms"`
	Workers     int                `json:"workers"`
	// AgentTasks is the agent task queue's depth, counted up to Max; nil
	// when the queue cannot count.
	AgentTasks *struct {
		Count int `json:"count"`
		Max   int `json:"max"`
	} `json:"agent_tasks"`
}

// bar is one bar of a server-drawn SVG bar chart.
type bar struct {
	Label       string
	Value       float64
	Y, W, TextY float64
}

// bars lays out values as horizontal bars in a 400-unit-wide chart.
func bars(values map[string]float64) ([]bar, float64) {
	keys := make([]string, 0, len(values))
	var top float64
	for k, v := range values {
		keys = append(keys, k)
		top = max(top, v)
	}
	sort.Strings(keys)
	out := make([]bar, len(keys))
	for i, k := range keys {
		w := 0.0
		if top > 0 {
			w = 260 * values[k] / top
		}
		out[i] = bar{Label: k, Value: values[k], Y: float64(i * 28), W: w, TextY: float64(i*28) + 17}
	}
	return out, float64(len(keys)*28 + 4)
}

// countRuns counts every account's runs of status, up to limit ("limit+"
// past it): the run list is paged, not counted.
func (ss *session) countRuns(r *http.Request, status string, limit int) string {
	var list struct {
		Runs       []runSummary `json:"runs"`
		NextCursor string       `json:"next_cursor"`
	}
	if e := ss.call(r.Context(), mRunList, map[string]any{"account": "*", "status": []any{status}, "limit": limit}, &list); e != nil {
		return "? (" + e.Message + ")"
	}
	if list.NextCursor != "" {
		return fmt.Sprintf("%d+", len(list.Runs))
	}
	return fmt.Sprint(len(list.Runs))
}

func (c *Console) systemPage(w http.ResponseWriter, r *http.Request, ss *session) {
	var st stats
	if e := ss.call(r.Context(), mStats, nil, &st); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	execBars, execHeight := bars(st.Executions)
	httpBars, httpHeight := bars(st.HTTP)
	data := map[string]any{"Stats": st, "Queued": ss.countRuns(r, "queued", 1000), "Running": ss.countRuns(r, "running", 1000),
		"Waiting": ss.countRuns(r, "waiting", 1000), "ExecBars": execBars, "ExecHeight": execHeight,
		"HTTPBars": httpBars, "HTTPHeight": httpHeight}
	if acct := strings.TrimSpace(r.URL.Query().Get("account")); acct != "" {
		data["Account"] = acct
		data["RateLimits"] = ss.section(r, mAdminRateLimits, map[string]any{"account": acct})
	}
	c.render(w, http.StatusOK, "system", ss, view{Title: "System", Section: "admin", Data: data})
}

// statsJSON is admin.stats.get's answer for the page's charts.
func (c *Console) statsJSON(w http.ResponseWriter, r *http.Request, ss *session) {
	var st map[string]any
	if e := ss.call(r.Context(), mStats, nil, &st); e != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.Status)
		_ = json.NewEncoder(w).Encode(map[string]any{"code": e.Code, "message": e.Message})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(st)
}
