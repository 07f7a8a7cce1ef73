package console_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/config"
)

func TestSignInCookieIsStrictHttpOnlyAndHoldsNoKey(t *testing.T) {
	s := newSite(t)
	_, key := s.account()
	b := s.browser()
	form := b.get("/console/signin").want(t, http.StatusOK)
	resp, err := b.client.PostForm(s.http.URL+"/console/signin", url.Values{"csrf": {form.csrf(t)}, "key": {key}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if strings.Contains(c.Value, key) || strings.Contains(c.Value, key[len(key)-12:]) {
			t.Fatalf("cookie %s holds the key", c.Name)
		}
		if c.Name == "sluice_console" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/console/" ||
		session.Expires.IsZero() || session.MaxAge <= 0 || !strings.HasPrefix(session.Value, "cs-") || len(session.Value) != 3+64 {
		t.Fatalf("session cookie: %+v", session)
	}

	if session.Secure {
		t.Fatal("a cookie over plain HTTP is Secure: the browser would not send it back")
	}
	// Behind a proxy that terminates TLS, the cookie is Secure.
	pb := s.browser()
	form = pb.get("/console/signin")
	req, _ := http.NewRequest("POST", s.http.URL+"/console/signin", strings.NewReader(url.Values{"csrf": {form.csrf(t)}, "key": {key}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Proto", "https")
	u, _ := url.Parse(s.http.URL + "/console/")
	for _, c := range pb.client.Jar.Cookies(u) {
		req.AddCookie(c)
	}
	resp, err = pb.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	secure := false
	for _, c := range resp.Cookies() {
		secure = secure || c.Name == "sluice_console" && c.Secure
	}
	if !secure {
		t.Fatalf("behind a TLS proxy the session cookie is not Secure: %v", resp.Header["Set-Cookie"])
	}

	// A wrong key is refused on the form, with no cookie.
	b2 := s.browser()
	form = b2.get("/console/signin")
	p := b2.post("/console/signin", url.Values{"csrf": {form.csrf(t)}, "key": {"slk_not_a_key"}}).want(t, http.StatusUnauthorized)
	if !strings.Contains(p.body, "not accepted") {
		t.Fatalf("refused sign-in: %s", p.body)
	}
	b2.get("/console/runs").want(t, http.StatusSeeOther)
}

func TestFormsWithoutTheirCSRFTokenAreRefused(t *testing.T) {
	s := newSite(t)
	_, key := s.account()
	running := s.execute(key, true, waitOp("pause", 60000), begin("pause"))

	// The sign-in form: no token, or one that is not its cookie's.
	b := s.browser()
	b.get("/console/signin")
	b.post("/console/signin", url.Values{"key": {key}}).want(t, http.StatusForbidden)
	b.post("/console/signin", url.Values{"key": {key}, "csrf": {"csrf-00000000000000000000000000000000"}}).want(t, http.StatusForbidden)
	b.get("/console/runs").want(t, http.StatusSeeOther) // not signed in

	b.signIn(key)
	token := b.get("/console/runs/"+running).want(t, http.StatusOK).csrf(t)
	for _, path := range []string{"/console/runs/" + running + "/cancel", "/console/runs/" + running + "/answer", "/console/signout",
		"/console/admin/accounts", "/console/agents/invoke"} {
		b.post(path, url.Values{}).want(t, http.StatusForbidden)
		b.post(path, url.Values{"csrf": {token + "x"}}).want(t, http.StatusForbidden)
	}
	if st := s.status(key, running); st != "running" && st != "queued" {
		t.Fatalf("a refused cancel changed the run: %s", st)
	}
	// Another browser's token is not this one's.
	other := s.browser()
	other.signIn(key)
	otherToken := other.get("/console/runs").csrf(t)
	b.post("/console/runs/"+running+"/cancel", url.Values{"csrf": {otherToken}}).want(t, http.StatusForbidden)
	b.post("/console/runs/"+running+"/cancel", url.Values{"csrf": {token}}).want(t, http.StatusSeeOther)
	if st := s.status(key, running); st != "cancelled" {
		t.Fatalf("cancelled run: %s", st)
	}
}

func TestAnAccountSeesOnlyItsOwnRunsAndNoAdminPage(t *testing.T) {
	s := newSite(t)
	aliceID, alice := s.account()
	_, bob := s.account()
	aliceRun := s.execute(alice, false, waitOp("pause", 0), begin("pause"))
	bobRun := s.execute(bob, false, waitOp("pause", 0), begin("pause"))

	b := s.browser()
	b.signIn(alice)
	list := b.get("/console/runs").want(t, http.StatusOK)
	if !strings.Contains(list.body, aliceRun) || strings.Contains(list.body, bobRun) {
		t.Fatalf("alice's list: %s", list.body)
	}
	if strings.Contains(list.body, "/console/admin") {
		t.Fatal("an account's page links the admin pages")
	}
	b.get("/console/runs/"+aliceRun).want(t, http.StatusOK)
	p := b.get("/console/runs/"+bobRun).want(t, http.StatusNotFound)
	if strings.Contains(p.body, "pause") {
		t.Fatalf("another's run shows: %s", p.body)
	}
	b.get("/console/runs?account=*").want(t, http.StatusOK) // an account's filter is its own
	// The tools it may call, found by discovery search.
	if tools := b.get("/console/tools?query=wait").want(t, http.StatusOK); !strings.Contains(tools.body, "Wait</code>") {
		t.Fatalf("tools page: %s", tools.body)
	}
	for _, path := range []string{"/console/admin/accounts", "/console/admin/accounts/" + aliceID, "/console/admin/credentials", "/console/admin/audit",
		"/console/admin/system", "/console/admin/system?account=" + aliceID, "/console/admin/stats.json"} {
		b.get(path).want(t, http.StatusForbidden)
	}
	token := list.csrf(t)
	b.post("/console/admin/accounts", url.Values{"csrf": {token}, "name": {"sneaky"}}).want(t, http.StatusForbidden)
	b.post("/console/runs/"+bobRun+"/cancel", url.Values{"csrf": {token}}).want(t, http.StatusNotFound)

	// The admin sees every account's runs, and may filter by account.
	a := s.browser()
	a.signIn(s.admin)
	all := a.get("/console/runs").want(t, http.StatusOK)
	if !strings.Contains(all.body, aliceRun) || !strings.Contains(all.body, bobRun) || !strings.Contains(all.body, "/console/admin") {
		t.Fatalf("admin's list: %s", all.body)
	}
	one := a.get("/console/runs?account="+aliceID).want(t, http.StatusOK)
	if !strings.Contains(one.body, aliceRun) || strings.Contains(one.body, bobRun) {
		t.Fatalf("admin's list of alice: %s", one.body)
	}
	a.get("/console/admin/accounts").want(t, http.StatusOK)
}

// Every page the console renders, for an account and the admin, carries
// the strict policy and none of the keys or a vault value, whether plain
// or encoded.
func TestNoSecretReachesAnyPage(t *testing.T) {
	s := newSite(t)
	s.publishApprove()
	id, key := s.account()
	const vaultValue = "vault-value-4f7c2d9a1b"
	s.api("PUT", "/api/v1/admin/credentials/users-api", s.admin, map[string]any{"type": "bearer-token", "value": vaultValue,
		"hosts": []string{"127.0.0.1"}}, http.StatusOK)
	up := failing(t)
	done := s.execute(key, false, waitOp("pause", 0), begin("pause"))
	failed := s.execute(key, false, fetchOp("fetch", up.URL+"/x"), begin("fetch"))
	waiting := s.waitingRun(key)

	secrets := []string{s.admin, key, vaultValue}
	var forms []string
	for _, x := range secrets {
		forms = append(forms, x, url.QueryEscape(x), base64.StdEncoding.EncodeToString([]byte(x)),
			base64.RawURLEncoding.EncodeToString([]byte(x)), hex.EncodeToString([]byte(x)))
		if len(x) > 16 {
			forms = append(forms, x[len(x)-16:]) // the key's secret part alone
		}
	}
	check := func(who, path string, p page) {
		t.Helper()
		if p.header.Get("Content-Security-Policy") == "" || !strings.Contains(p.header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("%s %s: no strict CSP: %q", who, path, p.header.Get("Content-Security-Policy"))
		}
		if strings.Contains(p.body, "<script>") || strings.Contains(p.body, " style=") || strings.Contains(p.body, "<style") {
			t.Errorf("%s %s: inline script or style", who, path)
		}
		for _, f := range forms {
			if strings.Contains(p.body, f) {
				t.Errorf("%s %s: a secret (%d characters) is on the page", who, path, len(f))
			}
		}
	}
	pages := []string{"/console/runs", "/console/runs?status=failed", "/console/runs/" + done, "/console/runs/" + failed,
		"/console/runs/" + waiting, "/console/decisions", "/console/capabilities", "/console/capabilities?query=approve",
		"/console/tools", "/console/tools?query=filter", "/console/agents", "/console/signin", "/console/nowhere",
		"/console/capabilities/finance/Approve"}
	admin := []string{"/console/admin/accounts", "/console/admin/accounts/" + id, "/console/admin/credentials", "/console/admin/audit",
		"/console/admin/system", "/console/admin/system?account=" + id, "/console/admin/stats.json",
		"/console/admin/audit?method=run.get", "/console/runs?account=" + id}
	b := s.browser()
	check("signed out", "/console/signin", b.get("/console/signin"))
	b.signIn(key)
	for _, path := range pages {
		check("account", path, b.get(path))
	}
	check("account", "events", b.get("/console/runs/"+done+"/events"))
	a := s.browser()
	a.signIn(s.admin)
	for _, path := range append(pages, admin...) {
		p := a.get(path)
		if p.status >= 500 {
			t.Errorf("admin %s: %d: %s", path, p.status, p.body)
		}
		check("admin", path, p)
	}
	// The credential is listed by its metadata.
	if p := a.get("/console/admin/credentials"); !strings.Contains(p.body, "users-api") {
		t.Fatalf("credentials page: %s", p.body)
	}
}

func TestARevokedKeyEndsTheSignIn(t *testing.T) {
	s := newSite(t)
	id, _ := s.account()
	k := s.api("POST", "/api/v1/admin/accounts/"+id+"/keys", s.admin, map[string]any{}, http.StatusCreated)
	key, keyID := k["api_key"].(string), k["key_id"].(string)
	b := s.browser()
	b.signIn(key)
	b.get("/console/runs").want(t, http.StatusOK)
	s.api("DELETE", "/api/v1/admin/accounts/"+id+"/keys/"+keyID, s.admin, nil, http.StatusOK)
	// The gateway checks a connection's key again every few seconds.
	waitFor(t, 20*time.Second, "the revoked key to end the sign-in", func() bool {
		return b.get("/console/runs").status == http.StatusSeeOther
	})
	p := b.get("/console/runs")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/console/signin") {
		t.Fatalf("after revocation: %d %s", p.status, p.header.Get("Location"))
	}
}

func TestSignOutEndsTheSession(t *testing.T) {
	s := newSite(t)
	_, key := s.account()
	b := s.browser()
	b.signIn(key)
	jar := b.client.Jar
	u, _ := url.Parse(s.http.URL + "/console/")
	old := jar.Cookies(u)
	token := b.get("/console/runs").csrf(t)
	b.post("/console/signout", url.Values{"csrf": {token}}).want(t, http.StatusSeeOther)
	b.get("/console/runs").want(t, http.StatusSeeOther)
	// The old cookie, kept by someone, no longer signs in.
	replay := s.browser()
	replay.client.Jar.SetCookies(u, old)
	replay.get("/console/runs").want(t, http.StatusSeeOther)
}

func TestAdminCreatesAnAccountAKeyAndEditsGrants(t *testing.T) {
	s := newSite(t)
	a := s.browser()
	a.signIn(s.admin)
	token := a.get("/console/admin/accounts").want(t, http.StatusOK).csrf(t)
	p := a.post("/console/admin/accounts", url.Values{"csrf": {token}, "name": {"made in the console"},
		"operations": {"FilterData, Wait"}, "hosts": {"api.example.com"}, "capability_level": {"basic"}}).want(t, http.StatusCreated)
	id := between(p.body, `id="new-account">`, "<")
	key := between(p.body, `id="new-key" readonly value="`, `"`)
	if !strings.HasPrefix(id, "acct-") || !strings.HasPrefix(key, "slk_") {
		t.Fatalf("created: %q %q: %s", id, key, p.body)
	}
	acct := s.api("GET", "/api/v1/admin/accounts/"+id, s.admin, nil, http.StatusOK)
	perms := acct["permissions"].(map[string]any)
	if ops := perms["operations"].([]any); len(ops) != 2 || ops[0] != "FilterData" || ops[1] != "Wait" {
		t.Fatalf("grants: %v", perms)
	}
	// The new key works, and the account page does not show it.
	s.execute(key, false, waitOp("pause", 0), begin("pause"))
	page := a.get("/console/admin/accounts/"+id).want(t, http.StatusOK)
	if strings.Contains(page.body, key) || !strings.Contains(page.body, "FilterData, Wait") {
		t.Fatalf("account page: %s", page.body)
	}
	// A second key; grants saved from the form; disable.
	p = a.post("/console/admin/accounts/"+id+"/keys", url.Values{"csrf": {token}}).want(t, http.StatusCreated)
	if k2 := between(p.body, `id="new-key" readonly value="`, `"`); !strings.HasPrefix(k2, "slk_") || k2 == key {
		t.Fatalf("second key: %q", k2)
	}
	a.post("/console/admin/accounts/"+id, url.Values{"csrf": {token}, "action": {"grants"}, "operations": {"Wait"}}).want(t, http.StatusSeeOther)
	acct = s.api("GET", "/api/v1/admin/accounts/"+id, s.admin, nil, http.StatusOK)
	if ops := acct["permissions"].(map[string]any)["operations"].([]any); len(ops) != 1 || ops[0] != "Wait" {
		t.Fatalf("grants after the form: %v", acct["permissions"])
	}
	a.post("/console/admin/accounts/"+id, url.Values{"csrf": {token}, "action": {"disable"}}).want(t, http.StatusSeeOther)
	if acct = s.api("GET", "/api/v1/admin/accounts/"+id, s.admin, nil, http.StatusOK); acct["disabled"] != true {
		t.Fatalf("not disabled: %v", acct)
	}
	// The admin's console calls are audited as the API's are.
	audit := a.get("/console/admin/audit?method=admin.accounts.create").want(t, http.StatusOK)
	if !strings.Contains(audit.body, "admin.accounts.create") {
		t.Fatalf("audit page: %s", audit.body)
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

func TestFailedRunShowsItsErrorAndAWaitingRunTakesAnAnswer(t *testing.T) {
	s := newSite(t)
	s.publishApprove()
	_, key := s.account()
	up := failing(t)
	failed := s.execute(key, false, fetchOp("fetch", up.URL+"/x"), begin("fetch"))
	b := s.browser()
	b.signIn(key)
	p := b.get("/console/runs/"+failed).want(t, http.StatusOK)
	if !strings.Contains(p.body, `id="errors"`) || !strings.Contains(p.body, "500") || strings.Contains(p.body, `id="cancel"`) {
		t.Fatalf("failed run page: %s", p.body)
	}

	waiting := s.waitingRun(key)
	p = b.get("/console/decisions").want(t, http.StatusOK)
	if !strings.Contains(p.body, waiting) {
		t.Fatalf("decisions: %s", p.body)
	}
	p = b.get("/console/runs/"+waiting).want(t, http.StatusOK)
	if !strings.Contains(p.body, "Approve a refund of 7 EUR") {
		t.Fatalf("waiting run page shows no question: %s", p.body)
	}
	if !strings.Contains(p.body, `<select id="field-verdict" name="field.verdict" required>`) {
		t.Fatalf("no form made from the question's schema: %s", p.body)
	}
	b.post("/console/runs/"+waiting+"/answer", url.Values{"csrf": {p.csrf(t)}, "form": {"fields"}, "field.verdict": {"yes"},
		"type.verdict": {"string"}}).want(t, http.StatusSeeOther)
	if st := s.status(key, waiting); st != "success" {
		t.Fatalf("answered run: %s", st)
	}
}

// The run page's stream relays the run's frames, numbered, then ends.
func TestRunEventsRelayTheFramesLive(t *testing.T) {
	s := newSite(t)
	_, key := s.account()
	b := s.browser()
	b.signIn(key)
	id := s.execute(key, true, waitOp("first", 300), waitOp("second", 0), begin("first", "second"))
	resp, err := b.client.Get(s.http.URL + "/console/runs/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var ids []string
	var finished []string
	ended := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			ids = append(ids, strings.TrimPrefix(line, "id: "))
		case strings.HasPrefix(line, "event: end"):
			ended = true
		case strings.HasPrefix(line, "data: ") && strings.Contains(line, `"kind":"finished"`):
			finished = append(finished, between(line, `"operationId":"`, `"`))
		}
		if ended && line == "" {
			break
		}
	}
	if !ended || len(ids) < 4 || ids[0] != "1" || strings.Join(finished, ",") != "first,second" {
		t.Fatalf("stream: ended %v, ids %v, finished %v", ended, ids, finished)
	}
	// Resumed after a frame, it sends only the later ones.
	req, _ := http.NewRequest("GET", s.http.URL+"/console/runs/"+id+"/events", nil)
	req.Header.Set("Last-Event-ID", ids[len(ids)-2])
	r2, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	p := read(t, r2)
	if strings.Count(p.body, "id: ") != 1 || !strings.Contains(p.body, "id: "+ids[len(ids)-1]) {
		t.Fatalf("resumed stream: %s", p.body)
	}
}

func TestRootRedirectsAndTheConsoleCanBeOff(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	p := b.get("/").want(t, http.StatusFound)
	if p.header.Get("Location") != "/console/" {
		t.Fatalf("GET /: %v", p.header)
	}
	if p := b.get("/console/"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/console/signin") {
		t.Fatalf("GET /console/ signed out: %d %v", p.status, p.header)
	}
	b.get("/health").want(t, http.StatusOK) // the API is still the API
	b.get("/console/static/console.js").want(t, http.StatusOK)

	// On an address of its own: the API's address does not serve it.
	own := newSite(t, func(c *config.Config) { c.Console.Addr = "127.0.0.1:1" })
	own.browser().get("/console/signin").want(t, http.StatusNotFound)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- own.app.ServeConsole(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/console/signin")
	if err != nil {
		t.Fatal(err)
	}
	if p := read(t, resp); p.status != http.StatusOK || !strings.Contains(p.body, `id="key"`) {
		t.Fatalf("the console on its own address: %d", p.status)
	}
	if resp, err := http.Get("http://" + ln.Addr().String() + "/health"); err != nil || read(t, resp).status != http.StatusNotFound {
		t.Fatalf("the console's address serves the API: %v", err)
	}
	stop()
	if err := <-served; err != nil {
		t.Fatalf("ServeConsole: %v", err)
	}

	off := newSite(t, func(c *config.Config) { c.Console.Enabled = false })
	ob := off.browser()
	ob.get("/").want(t, http.StatusNotFound)
	ob.get("/console/signin").want(t, http.StatusNotFound)
}

// The system page: the server's counters, the queue as the run list counts
// it, an account's rate-limit windows; the charts' JSON.
func TestSystemPageShowsTheServersCounters(t *testing.T) {
	s := newSite(t)
	id, key := s.account()
	s.execute(key, false, waitOp("pause", 0), begin("pause"))
	long := s.execute(key, true, waitOp("long", 600000), begin("long"))
	waitFor(t, 20*time.Second, "the long run to start", func() bool { return s.status(key, long) == "running" })
	a := s.browser()
	a.signIn(s.admin)
	p := a.get("/console/admin/system?account="+id).want(t, http.StatusOK)
	if got := between(p.body, `<dd id="running">`, "<"); got != "1" {
		t.Errorf("running: %q", got)
	}
	// The test server's agent queue is its SQLite store's, which counts.
	if got := between(p.body, `<dd id="agent-tasks">`, "<"); got != "0" {
		t.Errorf("agent tasks: %q", got)
	}
	if got := between(p.body, `<dd id="requests">`, "<"); got == "" || got == "0" {
		t.Errorf("requests: %q", got)
	}
	if !strings.Contains(p.body, `class="bar bar-success"`) || !strings.Contains(p.body, `id="rate-limits"`) ||
		!strings.Contains(p.body, "requests_per_minute") {
		t.Fatalf("system page: %s", p.body)
	}
	j := a.get("/console/admin/stats.json").want(t, http.StatusOK)
	if j.header.Get("Content-Type") != "application/json" || !strings.Contains(j.body, `"latency_buckets"`) || !strings.Contains(j.body, `"success":`) {
		t.Fatalf("stats.json: %s", j.body)
	}
	// The server keeps its own history of the counters: this read's sample
	// at least, with the fields the charts read.
	var served struct {
		History []struct {
			Time     time.Time `json:"time"`
			Requests float64   `json:"requests"`
			Latency  []any     `json:"latency_buckets"`
		} `json:"history"`
	}
	if err := json.Unmarshal([]byte(j.body), &served); err != nil || len(served.History) == 0 ||
		served.History[len(served.History)-1].Requests == 0 || served.History[0].Time.IsZero() ||
		len(served.History[0].Latency) == 0 {
		t.Fatalf("stats.json's history: %v %s", err, j.body)
	}
	b := s.browser()
	b.signIn(key)
	if j := b.get("/console/admin/stats.json"); j.status != http.StatusForbidden || strings.Contains(j.body, "latency_buckets") {
		t.Fatalf("stats.json as an account: %d %s", j.status, j.body)
	}
}

// A capability's page: lint, its tasks as a graph with the mapping between
// them, and the form made from its inputs, which runs it.
func TestCapabilityPageRunsItFromItsInputsForm(t *testing.T) {
	s := newSite(t)
	s.publishApprove()
	_, key := s.account()
	b := s.browser()
	b.signIn(key)
	list := b.get("/console/capabilities").want(t, http.StatusOK)
	if !strings.Contains(list.body, `href="/console/capabilities/finance/Approve"`) {
		t.Fatalf("registry: %s", list.body)
	}
	p := b.get("/console/capabilities/finance/Approve").want(t, http.StatusOK)
	for _, want := range []string{`data-task="judge"`, `data-task="record"`, `<title>judge → record</title>`, `id="lint"`,
		`name="type.amount" value="number"`, `id="in-amount" name="field.amount" type="number"`} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("capability page lacks %s: %s", want, p.body)
		}
	}
	r := b.post("/console/capabilities/finance/Approve/run", url.Values{"csrf": {p.csrf(t)}, "type.amount": {"number"}, "field.amount": {"12"}}).
		want(t, http.StatusSeeOther)
	run := strings.TrimPrefix(r.header.Get("Location"), "/console/runs/")
	if !strings.HasPrefix(run, "run-") || s.status(key, run) != "waiting" {
		t.Fatalf("run from the form: %q", r.header.Get("Location"))
	}
	if page := b.get("/console/runs/" + run); !strings.Contains(page.body, "Approve a refund of 12 EUR") {
		t.Fatalf("the run's question: %s", page.body)
	}
	b.get("/console/capabilities/finance/Nothing").want(t, http.StatusNotFound)
}

// The agents page: the admin's registry with health and breaker (and no
// agent's token), an account's agent tools, and the invoke form.
func TestAgentsPageListsAndInvokes(t *testing.T) {
	s := newSite(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = agent.ServeMock(ctx, ln, agent.MockOptions{Name: "summarizer"}) }()
	t.Cleanup(func() { cancel(); <-done })
	const token = "agent-token-5e1f0c"
	s.api("POST", "/api/v1/admin/agents", s.admin, map[string]any{"name": "summarizer", "url": "http://" + ln.Addr().String(),
		"auth_config": map[string]any{"type": "bearer", "token": token}}, http.StatusCreated)
	r := s.api("POST", "/api/v1/admin/accounts", s.admin, map[string]any{"name": "agent user",
		"permissions": map[string]any{"agents": []string{"summarizer"}}}, http.StatusCreated)
	key := r["api_key"].(string)

	a := s.browser()
	a.signIn(s.admin)
	p := a.get("/console/agents").want(t, http.StatusOK)
	first := p.body
	if !strings.Contains(p.body, "<code>summarizer</code>") || !strings.Contains(p.body, "closed") || strings.Contains(p.body, token) {
		t.Fatalf("admin's agents page: %s", p.body)
	}
	b := s.browser()
	b.signIn(key)
	p = b.get("/console/agents").want(t, http.StatusOK)
	if !strings.Contains(p.body, "summarizer") || strings.Contains(p.body, token) {
		t.Fatalf("account's agents page: %s", p.body)
	}
	p = b.post("/console/agents/invoke", url.Values{"csrf": {p.csrf(t)}, "agent": {"summarizer"}, "input": {`{"text":"hello console"}`}}).
		want(t, http.StatusOK)
	if !strings.Contains(p.body, "<h2>Answer</h2>") || strings.Contains(p.body, `class="error"`) {
		t.Fatalf("invoke: %s", p.body)
	}
	p = b.post("/console/agents/invoke", url.Values{"csrf": {p.csrf(t)}, "agent": {"nobody"}, "input": {"x"}}).want(t, http.StatusOK)
	if !strings.Contains(p.body, `class="error"`) {
		t.Fatalf("invoke of an agent not granted: %s", p.body)
	}

	// The admin's page shows the agent's recent calls: none before, the
	// one invoke after.
	if !strings.Contains(between(first, `<td class="recent">`, `</td>`), "no calls yet") {
		t.Errorf("before any call: %q", between(first, `<td class="recent">`, `</td>`))
	}
	recent := between(a.get("/console/agents").want(t, http.StatusOK).body, `<td class="recent">`, `</td>`)
	if !strings.Contains(recent, "1 attempts, 0 % failed; p50 ") {
		t.Errorf("after one good call: %q", recent)
	}
}
