package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// pages are the templates, one set per page: the layout and the page's
// "content".
var pages = parsePages()

// partials are the templates every page may use.
var partials = map[string]bool{"layout.html": true, "grants.html": true, "adminnav.html": true}

// dict makes a map of key, value pairs for a partial template.
func dict(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		m[k] = kv[i+1]
	}
	return m
}

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"json":     jsonView,
		"when":     when,
		"duration": duration,
		"join":     strings.Join,
		"dict":     dict,
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		base := path.Base(n)
		if partials[base] {
			continue
		}
		files := []string{n}
		for p := range partials {
			files = append(files, "templates/"+p)
		}
		out[strings.TrimSuffix(base, ".html")] = template.Must(template.New(base).Funcs(funcs).
			ParseFS(templateFiles, files...))
	}
	return out
}

// view is what every page's template gets: the sign-in (nil on the sign-in
// page) for the navigation and the forms' CSRF token, and the page's data.
type view struct {
	Title   string
	Section string // the navigation's current entry
	Account string
	Admin   bool
	CSRF    string
	Notice  string
	Data    any
}

func (c *Console) render(w http.ResponseWriter, status int, name string, ss *session, v view) {
	if ss != nil {
		v.Account, v.Admin, v.CSRF = ss.account, ss.admin, ss.csrf
	}
	var buf bytes.Buffer
	t := pages[name]
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		c.log.Error("console page not rendered", "page", name, "error", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// refuse renders an error page with status and a message safe to show.
func (c *Console) refuse(w http.ResponseWriter, r *http.Request, ss *session, status int, msg string) {
	c.render(w, status, "error", ss, view{Title: http.StatusText(status), Data: map[string]any{"Status": status, "Message": msg}})
}

// failed renders a method's error; a key no longer accepted ends the
// sign-in and asks for a key again.
func (c *Console) failed(w http.ResponseWriter, r *http.Request, ss *session, e *callError) {
	if e.Code == "unauthenticated" {
		c.sessions.end(ss.id)
		setCookie(w, r, sessionCookie, "", time.Time{})
		if r.Method == http.MethodGet {
			http.Redirect(w, r, Prefix+"signin?ended=1", http.StatusSeeOther)
			return
		}
		ss = nil
	}
	c.refuse(w, r, ss, e.Status, e.Message+" ("+e.Code+")")
}

func when(t any) string {
	switch v := t.(type) {
	case time.Time:
		if v.IsZero() {
			return ""
		}
		return v.UTC().Format("2006-01-02 15:04:05")
	case *time.Time:
		if v == nil {
			return ""
		}
		return when(*v)
	}
	return ""
}

func duration(from time.Time, to *time.Time) string {
	if to == nil || from.IsZero() {
		return ""
	}
	return to.Sub(from).Round(time.Millisecond).String()
}

// The JSON viewer's bounds: a page stays small whatever a run returned.
const (
	jsonMaxNodes  = 2000
	jsonMaxDepth  = 24
	jsonMaxString = 4096
)

// jsonView renders a JSON value as nested <details> elements, collapsible
// without script; every text is escaped. Objects and arrays open at the
// first two levels.
func jsonView(v any) template.HTML {
	var b strings.Builder
	n := 0
	writeJSONNode(&b, v, 0, &n)
	return template.HTML(b.String()) // every piece of text above is escaped
}

func writeJSONNode(b *strings.Builder, v any, depth int, n *int) {
	*n++
	if *n > jsonMaxNodes || depth > jsonMaxDepth {
		if *n == jsonMaxNodes+1 || depth > jsonMaxDepth {
			b.WriteString(`<span class="json-more">… (more, not shown)</span>`)
		}
		return
	}
	open := ""
	if depth < 2 {
		open = " open"
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(b, `<details class="json"%s><summary>{%d}</summary><dl>`, open, len(keys))
		for _, k := range keys {
			b.WriteString(`<dt>` + template.HTMLEscapeString(k) + `</dt><dd>`)
			writeJSONNode(b, x[k], depth+1, n)
			b.WriteString(`</dd>`)
		}
		b.WriteString(`</dl></details>`)
	case []any:
		fmt.Fprintf(b, `<details class="json"%s><summary>[%d]</summary><ol start="0">`, open, len(x))
		for _, e := range x {
			b.WriteString(`<li>`)
			writeJSONNode(b, e, depth+1, n)
			b.WriteString(`</li>`)
		}
		b.WriteString(`</ol></details>`)
	case string:
		if len(x) > jsonMaxString {
			x = x[:jsonMaxString] + "…"
		}
		raw, _ := json.Marshal(x)
		b.WriteString(`<span class="json-string">` + template.HTMLEscapeString(string(raw)) + `</span>`)
	default:
		raw, _ := json.Marshal(x)
		b.WriteString(`<span class="json-scalar">` + template.HTMLEscapeString(string(raw)) + `</span>`)
	}
}
