package console

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The catalogue pages: what the key may call, each list one method's answer.

// section is one method's answer on a page, or why it is not there (a
// method the key may not call, or one this server does not offer).
type section struct {
	Value   any
	Problem string
}

func (ss *session) section(r *http.Request, method string, params map[string]any) section {
	var v any
	if e := ss.call(r.Context(), method, params, &v); e != nil {
		return section{Problem: e.Message + " (" + e.Code + ")"}
	}
	return section{Value: v}
}

func (c *Console) capabilitiesPage(w http.ResponseWriter, r *http.Request, ss *session) {
	q := strings.TrimSpace(r.URL.Query().Get("query"))
	params := map[string]any{}
	if q != "" {
		params["query"] = q
	}
	c.render(w, http.StatusOK, "capabilities", ss, view{Title: "Capabilities", Section: "capabilities", Data: map[string]any{
		"Query": q, "Grants": ss.section(r, mCapabilitySearch, params), "Registry": ss.section(r, mRegistryList, nil),
	}})
}

func (c *Console) toolsPage(w http.ResponseWriter, r *http.Request, ss *session) {
	q := strings.TrimSpace(r.URL.Query().Get("query"))
	params := map[string]any{}
	if q != "" {
		params["query"] = q
	}
	var list struct {
		Tools []map[string]any `json:"tools"`
	}
	problem := ""
	if e := ss.call(r.Context(), mToolList, params, &list); e != nil {
		problem = e.Message + " (" + e.Code + ")"
	}
	c.render(w, http.StatusOK, "tools", ss, view{Title: "Tools", Section: "tools", Data: map[string]any{
		"Query": q, "Tools": list.Tools, "Problem": problem, "RateLimit": ss.section(r, mRateLimit, nil),
	}})
}

// agentRow is an agent of the registry as the agents page shows it.
type agentRow struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Protocol string `json:"protocol"`
	Breaker  struct {
		State               string `json:"state"`
		ConsecutiveFailures int    `json:"consecutive_failures"`
	} `json:"breaker"`
	Health *struct {
		Healthy    bool      `json:"healthy"`
		StatusCode int       `json:"status_code"`
		Error      string    `json:"error"`
		LatencyMs  int64     `json:"latency_ms"`
		CheckedAt  time.Time `json:"checked_at"`
	} `json:"health"`
	Recent agentRecent `json:"recent"`
}

// agentRecent is what the agent's latest attempts from this gateway say
// (admin.agents.list's recent).
type agentRecent struct {
	Attempts  int     `json:"attempts"`
	Failed    int     `json:"failed"`
	ErrorRate float64 `json:"error_rate"`
	P50Ms     int64   `json:"p50_ms"`
	P99Ms     int64   `json:"p99_ms"`
}

// ErrorPercent is the error rate as the page prints it.
func (r agentRecent) ErrorPercent() string {
	return strconv.FormatFloat(100*r.ErrorRate, 'f', -1, 64) + " %"
}

func (c *Console) agentsPage(w http.ResponseWriter, r *http.Request, ss *session) {
	c.renderAgents(w, r, ss, http.StatusOK, nil)
}

func (c *Console) renderAgents(w http.ResponseWriter, r *http.Request, ss *session, status int, result *section) {
	data := map[string]any{"Result": result}
	if ss.admin {
		// Only the fields the table shows: an entry's auth config is the
		// admin's business, not a page's.
		var list struct {
			Agents []agentRow `json:"agents"`
		}
		if e := ss.call(r.Context(), mAgentsList, nil, &list); e != nil {
			data["Problem"] = e.Message + " (" + e.Code + ")"
		}
		data["Agents"] = list.Agents
	} else {
		data["Registry"] = ss.section(r, mToolList, map[string]any{"filter_kind": "agent"})
	}
	c.render(w, status, "agents", ss, view{Title: "Agents", Section: "agents", Data: data})
}

// agentInvoke calls an agent with the form's input (JSON when it reads as
// JSON, else text) and shows the answer under the registry.
func (c *Console) agentInvoke(w http.ResponseWriter, r *http.Request, ss *session) {
	text := strings.TrimSpace(r.PostForm.Get("input"))
	var input any = text
	if json.Valid([]byte(text)) {
		_ = json.Unmarshal([]byte(text), &input)
	}
	res := ss.section(r, mAgentInvoke, map[string]any{"agent": strings.TrimSpace(r.PostForm.Get("agent")), "input": input})
	c.renderAgents(w, r, ss, http.StatusOK, &res)
}
