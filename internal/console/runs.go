package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// runSummary is a run in run.list's answer: the API's object, as the Go
// client reads it.
type runSummary = client.Run

// runFilter is the runs page's query: the filters, the page's cursor.
type runFilter struct {
	Status  string
	Kind    string
	Account string
	Cursor  string
	Limit   int
}

func filterOf(r *http.Request, admin bool) runFilter {
	q := r.URL.Query()
	f := runFilter{Status: q.Get("status"), Kind: q.Get("kind"), Cursor: q.Get("cursor"), Limit: 50}
	if admin {
		// An admin sees every account's runs unless it names one.
		f.Account = q.Get("account")
		if f.Account == "" {
			f.Account = "*"
		}
	}
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 && n <= 200 {
		f.Limit = n
	}
	return f
}

func (f runFilter) params() map[string]any {
	p := map[string]any{"limit": f.Limit}
	if f.Status != "" {
		p["status"] = []any{f.Status}
	}
	if f.Kind != "" {
		p["kind"] = []any{f.Kind}
	}
	if f.Account != "" {
		p["account"] = f.Account
	}
	if f.Cursor != "" {
		p["cursor"] = f.Cursor
	}
	return p
}

// query is the page's URL query for the same filters at cursor.
func (f runFilter) query(cursor string) string {
	v := make([]string, 0, 4)
	add := func(k, x string) {
		if x != "" {
			v = append(v, k+"="+url.QueryEscape(x))
		}
	}
	add("status", f.Status)
	add("kind", f.Kind)
	if f.Account != "*" {
		add("account", f.Account)
	}
	add("cursor", cursor)
	return strings.Join(v, "&")
}

func (c *Console) runsPage(w http.ResponseWriter, r *http.Request, ss *session) {
	f := filterOf(r, ss.admin)
	var list struct {
		Runs       []runSummary `json:"runs"`
		NextCursor string       `json:"next_cursor"`
	}
	if e := ss.call(r.Context(), mRunList, f.params(), &list); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	next := ""
	if list.NextCursor != "" {
		next = "?" + f.query(list.NextCursor)
	}
	c.render(w, http.StatusOK, "runs", ss, view{Title: "Runs", Section: "runs", Data: map[string]any{
		"Runs": list.Runs, "Filter": f, "Next": next, "First": "?" + f.query(""), "Paged": f.Cursor != "",
		"Statuses": store.Statuses, "Kinds": store.Kinds,
	}})
}

// decisionsPage lists the runs waiting for an answer (every kind).
func (c *Console) decisionsPage(w http.ResponseWriter, r *http.Request, ss *session) {
	var list struct {
		Runs []runSummary `json:"runs"`
	}
	if e := ss.call(r.Context(), mRunList, map[string]any{"status": []any{"waiting"}, "limit": 100}, &list); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	c.render(w, http.StatusOK, "decisions", ss, view{Title: "Pending decisions", Section: "capabilities", Data: list.Runs})
}

// runDetail is run.get's answer: the summary and the kind's own view,
// read as a JSON object for the pages to look into.
type runDetail struct {
	client.Run
	Input  any            `json:"input"`
	Plan   []planStep     `json:"plan"`
	Detail map[string]any `json:"detail"`
}

func (c *Console) runPage(w http.ResponseWriter, r *http.Request, ss *session) {
	var run runDetail
	if e := ss.call(r.Context(), mRunGet, map[string]any{"run_id": r.PathValue("id")}, &run); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	c.render(w, http.StatusOK, "run", ss, view{Title: "Run " + run.RunID, Section: "runs", Notice: noticeOf(r), Data: map[string]any{
		"Run": run, "Errors": errorsOf(run.Detail), "Question": questionOf(run.Detail),
		"Plan":  planJSON(run.Plan),
		"Final": slices.Contains([]string{"success", "failed", "partial", "cancelled"}, run.Status),
	}})
}

func noticeOf(r *http.Request) string {
	switch r.URL.Query().Get("done") {
	case "cancelled":
		return "The run was cancelled."
	case "answered":
		return "Your answer was sent; the run goes on."
	}
	return ""
}

// runError is one error a run reports, as the page lists it.
type runError struct {
	Operation string
	Type      string
	Message   string
}

// errorsOf reads the errors a run's view reports (an A2E execution's
// errors, a capability's or agent workflow's error).
func errorsOf(detail map[string]any) []runError {
	var out []runError
	add := func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
			if s, ok := v.(string); ok && s != "" {
				out = append(out, runError{Message: s})
			}
			return
		}
		e := runError{}
		e.Operation, _ = m["operationId"].(string)
		e.Type, _ = m["type"].(string)
		e.Message, _ = m["message"].(string)
		if e.Message != "" {
			out = append(out, e)
		}
	}
	for _, view := range viewsOf(detail) {
		if list, ok := view["errors"].([]any); ok {
			for _, v := range list {
				add(v)
			}
		}
		if v, ok := view["error"]; ok {
			add(v)
		}
	}
	return out
}

// viewsOf are the places a kind's view keeps its run's state: the view
// itself, and a capability run's result.
func viewsOf(detail map[string]any) []map[string]any {
	out := []map[string]any{detail}
	if r, ok := detail["result"].(map[string]any); ok {
		out = append(out, r)
	}
	return out
}

// question is what a waiting run asks: its text, the whole question, and
// the form its expected answer makes.
type question struct {
	Prompt string
	Value  any
	Fields []field
}

// questionOf is what a waiting run asks, if it says (an A2E execution's
// waiting, a capability's pending, an agent workflow's pending).
func questionOf(detail map[string]any) *question {
	for _, v := range viewsOf(detail) {
		for _, k := range []string{"waiting", "pending"} {
			if q, ok := v[k]; ok && q != nil {
				out := &question{Value: q}
				if m, ok := q.(map[string]any); ok {
					out.Prompt, _ = m["prompt"].(string)
					schema, _ := m["expected_output"].(map[string]any)
					out.Fields, _ = fieldsOf(schema)
				}
				return out
			}
		}
	}
	return nil
}

func (c *Console) runCancel(w http.ResponseWriter, r *http.Request, ss *session) {
	id := r.PathValue("id")
	if e := ss.call(r.Context(), mRunCancel, map[string]any{"run_id": id}, nil); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	http.Redirect(w, r, Prefix+"runs/"+url.PathEscape(id)+"?done=cancelled", http.StatusSeeOther)
}

// runAnswer sends the form's answer: the generated form's fields as an
// object, else the text as JSON when it reads as JSON, else as a string.
func (c *Console) runAnswer(w http.ResponseWriter, r *http.Request, ss *session) {
	id := r.PathValue("id")
	text := strings.TrimSpace(r.PostForm.Get("answer"))
	var answer any = text
	if json.Valid([]byte(text)) {
		_ = json.Unmarshal([]byte(text), &answer)
	}
	if r.PostForm.Get("form") == "fields" {
		fields, problem := answerOf(r.PostForm)
		if problem != "" {
			c.refuse(w, r, ss, http.StatusBadRequest, problem)
			return
		}
		answer = fields
	}
	if e := ss.call(r.Context(), mRunAnswer, map[string]any{"run_id": id, "answer": answer}, nil); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	http.Redirect(w, r, Prefix+"runs/"+url.PathEscape(id)+"?done=answered", http.StatusSeeOther)
}

// sseHeartbeat is how often an idle run stream gets a comment line.
const sseHeartbeat = 15 * time.Second

// runEvents relays a run's frames (run.events, as the key) to the run
// page's EventSource: each frame an event whose id is its sequence, so a
// reconnecting browser goes on after the last it had (Last-Event-ID); then
// "end", or "failure" with the error.
func (c *Console) runEvents(w http.ResponseWriter, r *http.Request, ss *session) {
	after := r.Header.Get("Last-Event-ID")
	if after == "" {
		after = r.URL.Query().Get("after")
	}
	n, err := strconv.ParseInt(after, 10, 64)
	if after != "" && (err != nil || n < 0) {
		c.refuse(w, r, ss, http.StatusBadRequest, "after: want a frame sequence, a whole number of 0 or more")
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream lasts as long as the run
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()

	var mu sync.Mutex
	write := func(event, id string, data any) error {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if id != "" {
			fmt.Fprintf(w, "id: %s\n", id)
		}
		if event != "" {
			fmt.Fprintf(w, "event: %s\n", event)
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		return rc.Flush()
	}
	// A comment line on an idle stream (a run parked on a long Wait) keeps
	// proxies from closing it.
	stop, ended := make(chan struct{}), false
	defer func() {
		// Nothing writes once the handler has returned.
		mu.Lock()
		ended = true
		mu.Unlock()
		close(stop)
	}()
	go func() {
		t := time.NewTicker(sseHeartbeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				mu.Lock()
				if !ended {
					_, _ = fmt.Fprint(w, ": keep-alive\n\n")
					_ = rc.Flush()
				}
				mu.Unlock()
			}
		}
	}()
	env := envelope(mRunEvents, map[string]any{"run_id": r.PathValue("id"), "after": n})
	sink := e2a.SinkFunc(func(f *e2a.Response) error {
		switch {
		case f.Kind == e2a.KindChunk:
			seq := fmt.Sprint(f.Body["seq"])
			return write("", seq, f.Body["delta"])
		case f.Kind == e2a.KindError:
			return write("failure", "", map[string]any{"code": f.Body["code"], "message": f.Body["message"]})
		case f.IsFinal:
			return write("end", "", map[string]any{})
		}
		return nil
	})
	if err := ss.conn.Call(r.Context(), env, sink); err != nil {
		e := errorOf(err)
		_ = write("failure", "", map[string]any{"code": e.Code, "message": e.Message})
	}
}
