package console_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is the system browser the browser tests drive (.ci/run installs
// it when it can).
const chromium = "/usr/bin/chromium"

// screens, when set, is a directory the browser test saves screenshots of
// the main pages in (docs/console.md describes them).
var screens = os.Getenv("SLUICE_CONSOLE_SCREENS")

// tab is one browser tab on the site, with what its console said.
type tab struct {
	t   *testing.T
	ctx context.Context
	url string

	mu       sync.Mutex
	messages []string
}

func openBrowser(t *testing.T, base string) *tab {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no %s: the browser tests need Chromium", chromium)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	b := &tab{t: t, ctx: ctx, url: base}
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("chromium: %v", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.messages = append(b.messages, m.String())
			b.mu.Unlock()
		}
	}()
	return b
}

func (b *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v (console: %v)", what, err, b.console())
	}
}

func (b *tab) text(sel string) string {
	return run(b, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}
func (b *tab) value(sel string) string {
	return run(b, "value of "+sel, chromedp.Value(chromedp.CSS(sel)))
}

// run runs an action that reads something, within 20 s.
func run[T any](b *tab, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

func (b *tab) status(path string) int64 {
	b.t.Helper()
	resp, err := chromedp.Run(b.ctx, chromedp.NavigateResponse(b.url+path))
	if err != nil {
		b.t.Fatalf("open %s: %v", path, err)
	}
	return resp.Status
}

func (b *tab) console() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.messages...)
}

func (b *tab) screenshot(name string) {
	if screens == "" {
		return
	}
	img, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(screens, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(screens, name+".png"), img, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func (b *tab) signIn(key string) {
	b.t.Helper()
	b.do("sign in",
		chromedp.Navigate(b.url+"/console/"),
		chromedp.WaitVisible(chromedp.CSS("#key")),
		chromedp.SendKeys(chromedp.CSS("#key"), key),
		chromedp.Click(chromedp.CSS("#signin")),
		chromedp.WaitVisible(chromedp.CSS("#runs")),
	)
}

func (b *tab) signOut() {
	b.t.Helper()
	b.do("sign out", chromedp.Click(chromedp.CSS("form.signout button")), chromedp.WaitVisible(chromedp.CSS("#key")))
}

// The scenarios, in one real browser: sign in, watch a workflow
// run from the API turn its node green live, read a failed run's error,
// answer a pending decision, cancel a running execution, be refused
// another's run and the admin pages, sign out; then as the admin create an
// account and a key.
func TestBrowserScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("a real browser: not in -short")
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no %s: the browser tests need Chromium", chromium)
	}
	s := newSite(t)
	s.publishApprove()
	_, key := s.account()
	_, other := s.account()
	othersRun := s.execute(other, false, waitOp("theirs", 0), begin("theirs"))
	up := failing(t)
	failed := s.execute(key, false, fetchOp("fetch-users", up.URL+"/users"), begin("fetch-users"))
	b := openBrowser(t, s.http.URL)

	// Signing in takes the keyboard alone: the key field has the focus,
	// Enter sends the form.
	b.do("sign in by keyboard",
		chromedp.Navigate(b.url+"/console/"),
		chromedp.WaitVisible(chromedp.CSS("#key")),
		chromedp.KeyEvent(key),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS("#runs")),
	)
	if got := b.text("#account"); got == "" {
		t.Fatal("no account shown once signed in")
	}
	if !strings.Contains(b.text("#runs"), failed) {
		t.Fatalf("the runs list lacks %s", failed)
	}
	// The list is live: a run started from the API appears without a reload.
	live := s.execute(key, false, waitOp("listed", 0), begin("listed"))
	b.do("the new run in the list", chromedp.WaitReady(chromedp.CSS(`#runs-body tr[data-run="`+live+`"]`)))
	b.screenshot("runs")

	// A workflow run from the API: its node turns green while we watch.
	running := s.execute(key, true, waitOp("pause", 1500), waitOp("after", 0), begin("pause", "after"))
	b.do("the run page",
		chromedp.Navigate(b.url+"/console/runs/"+running),
		chromedp.WaitReady(chromedp.CSS(`#graph g[data-op="pause"]:not([data-status="succeeded"])`)),
	)
	// The plan is drawn whole: the second operation is there, pending,
	// before the run reaches it (both read at one moment).
	both := run(b, "the nodes' status", chromedp.Evaluate[string](`(function () {
		var p = document.querySelector('#graph g[data-op="pause"]'), a = document.querySelector('#graph g[data-op="after"]');
		return (p ? p.getAttribute("data-status") : "none") + "/" + (a ? a.getAttribute("data-status") : "none");
	})()`))
	if pause, after, _ := strings.Cut(both, "/"); pause != "succeeded" && after != "pending" {
		t.Errorf("while pause is %s, the node after it is %q, want it drawn pending", pause, after)
	}
	b.screenshot("run-live")
	b.do("the node turns green",
		chromedp.WaitReady(chromedp.CSS(`#graph g[data-op="pause"][data-status="succeeded"]`)),
		chromedp.WaitReady(chromedp.CSS(`#graph g[data-op="after"][data-status="succeeded"]`)),
		chromedp.WaitReady(chromedp.CSS(`#run-status.status-success`)),
	)
	// At the final frame the whole page comes to the final state, without
	// a reload: the times filled, no Cancel, the view's status final.
	b.do("the page settles", chromedp.WaitReady(chromedp.CSS(`#graph[data-settled="true"]`)))
	b.screenshot("run-done")
	if got := b.text("#run-finished"); strings.TrimSpace(got) == "" {
		t.Error("a finished run's page shows no Finished time")
	}
	if got := b.text("#run-duration"); strings.TrimSpace(got) == "" {
		t.Error("a finished run's page shows no Duration")
	}
	if n := run(b, "cancel buttons", chromedp.Evaluate[int](`document.querySelectorAll("#cancel").length`)); n != 0 {
		t.Error("a finished run's page still offers Cancel")
	}
	if got := b.text("#detail"); !strings.Contains(got, `"success"`) || strings.Contains(got, `"running"`) {
		t.Errorf("the JSON viewer does not say the run succeeded: %q", got)
	}
	if st := s.status(key, running); st != "success" {
		t.Fatalf("the run is stored as %q", st)
	}

	// A plan with branches and a loop: the branch taken and the loop's body
	// turn green, the other branch stays pending (not run).
	branchy := s.executeWithInput(key, branchyDoc(200), map[string]any{"users": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}})
	b.do("the branchy run",
		chromedp.Navigate(b.url+"/console/runs/"+branchy),
		chromedp.WaitReady(chromedp.CSS(`#graph[data-settled="true"]`)),
		chromedp.WaitReady(chromedp.CSS(`#graph g[data-op="pick"][data-status="succeeded"]`)),
		chromedp.WaitReady(chromedp.CSS(`#graph g[data-op="each"][data-status="succeeded"]`)),
		chromedp.WaitReady(chromedp.CSS(`#graph g[data-op="idle"][data-status="pending"]`)),
	)
	if got := run(b, "the loop body's label", chromedp.Evaluate[string](`document.querySelector('#graph g[data-op="pick"] text').textContent`)); !strings.Contains(got, "×2") {
		t.Errorf("the loop body's node: %q, want its two iterations counted", got)
	}
	b.screenshot("run-plan")

	// A failed run: its error is on the page.
	b.do("the failed run", chromedp.Navigate(b.url+"/console/runs/"+failed), chromedp.WaitVisible(chromedp.CSS("#errors")))
	if e := b.text("#errors"); !strings.Contains(e, "fetch-users") || !strings.Contains(e, "500") {
		t.Fatalf("failed run's error: %q", e)
	}
	b.screenshot("run-failed")

	// At 200 % zoom (the same page in half the width) nothing runs off
	// the side: the page reflows, and only wide tables scroll inside
	// themselves.
	for _, path := range []string{"/console/runs", "/console/runs/" + failed} {
		b.do("200 % zoom", chromedp.EmulateViewport(640, 900), chromedp.Navigate(b.url+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
		over, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
		if err != nil || over {
			t.Errorf("%s at 200 %% zoom: scrolls sideways (%v)", path, err)
		}
	}
	b.screenshot("zoom-200")
	b.do("full width", chromedp.EmulateViewport(1280, 1000))

	// A pending decision, answered in the page.
	waiting := s.waitingRun(key)
	b.do("the pending decisions", chromedp.Navigate(b.url+"/console/decisions"),
		chromedp.Click(chromedp.CSS(`#decisions a[href="/console/runs/`+waiting+`"]`)),
		chromedp.WaitVisible(chromedp.CSS("#field-verdict")))
	if q := b.text("#question"); !strings.Contains(q, "Approve a refund of 7 EUR") {
		t.Fatalf("question: %q", q)
	}
	b.screenshot("decision")
	// The form is made from the question's schema: the verdict's enum is a select.
	b.do("answer", chromedp.SetValue(chromedp.CSS("#field-verdict"), "yes"), chromedp.Click(chromedp.CSS("#send-answer")),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	if st := s.status(key, waiting); st != "success" {
		t.Fatalf("answered run: %s", st)
	}

	// Cancel a running execution.
	long := s.execute(key, true, waitOp("long", 600000), begin("long"))
	waitFor(t, 10*time.Second, "the long run to start", func() bool { return s.status(key, long) == "running" })
	b.do("cancel", chromedp.Navigate(b.url+"/console/runs/"+long), chromedp.WaitVisible(chromedp.CSS("#cancel")),
		chromedp.Click(chromedp.CSS("#cancel")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	if st := s.status(key, long); st != "cancelled" {
		t.Fatalf("cancelled run: %s", st)
	}
	if st := b.text("#run-status"); st != "cancelled" {
		t.Fatalf("the page says %q", st)
	}

	// Another account's run, and the admin pages, are not this account's.
	if code := b.status("/console/runs/" + othersRun); code != http.StatusNotFound {
		t.Fatalf("another's run: %d", code)
	}
	if strings.Contains(b.text("main"), "theirs") {
		t.Fatal("another's run is shown")
	}
	if code := b.status("/console/admin/accounts"); code != http.StatusForbidden {
		t.Fatalf("admin page as an account: %d", code)
	}
	b.do("back", chromedp.Navigate(b.url+"/console/runs"), chromedp.WaitVisible(chromedp.CSS("#runs")))
	b.signOut()
	if code := b.status("/console/runs"); code != http.StatusOK || !strings.Contains(b.value("#key"), "") {
		t.Fatalf("after sign-out: %d", code)
	}
	b.do("signed out", chromedp.WaitVisible(chromedp.CSS("#key")))
	b.screenshot("signin")

	// The admin: create an account, then a second key for it.
	b.signIn(s.admin)
	b.do("create an account",
		chromedp.Navigate(b.url+"/console/admin/accounts"),
		chromedp.WaitVisible(chromedp.CSS("#name")),
		chromedp.SendKeys(chromedp.CSS("#name"), "made in the browser"),
		chromedp.SendKeys(chromedp.CSS("#g-operations"), "Wait, FilterData"),
	)
	b.screenshot("admin-accounts")
	b.do("submit", chromedp.Click(chromedp.CSS("#create-account")), chromedp.WaitVisible(chromedp.CSS("#new-key")))
	newKey, newAccount := b.value("#new-key"), b.text("#new-account")
	if !strings.HasPrefix(newKey, "slk_") || !strings.HasPrefix(newAccount, "acct-") {
		t.Fatalf("created %q %q", newAccount, newKey)
	}
	s.execute(newKey, false, waitOp("works", 0), begin("works")) // the key works
	b.do("a second key",
		chromedp.Navigate(b.url+"/console/admin/accounts/"+newAccount),
		chromedp.WaitVisible(chromedp.CSS("#create-key")),
	)
	b.screenshot("admin-account")
	b.do("create a key", chromedp.Click(chromedp.CSS("#create-key")), chromedp.WaitVisible(chromedp.CSS("#new-key")))
	if k := b.value("#new-key"); !strings.HasPrefix(k, "slk_") || k == newKey {
		t.Fatalf("second key %q", k)
	}
	b.do("capabilities", chromedp.Navigate(b.url+"/console/capabilities"), chromedp.WaitVisible(chromedp.CSS("#registry")))
	b.screenshot("capabilities")
	b.do("a capability", chromedp.Click(chromedp.CSS(`#registry a[href="/console/capabilities/finance/Approve"]`)),
		chromedp.WaitVisible(chromedp.CSS("#tasks")))
	b.screenshot("capability")
	b.do("audit", chromedp.Navigate(b.url+"/console/admin/audit"), chromedp.WaitVisible(chromedp.CSS("#audit")))
	b.screenshot("admin-audit")
	// The charts draw from the counters the page polls: two samples make a rate.
	b.do("system", chromedp.Navigate(b.url+"/console/admin/system"), chromedp.WaitVisible(chromedp.CSS("#queued")),
		chromedp.WaitReady(chromedp.CSS(`#charts[data-samples="2"] .chart svg polyline`)))
	b.screenshot("admin-system")

	// No page broke the policy: the browser reports a refused script or
	// style as a console error.
	for _, m := range b.console() {
		if strings.Contains(m, "Content Security Policy") || strings.Contains(m, "Uncaught") {
			t.Errorf("browser console: %s", m)
		}
	}
}
