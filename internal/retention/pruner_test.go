package retention_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/retention"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

var ctx = context.Background()

const day = 24 * time.Hour

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// world is a store whose clock the test moves.
type world struct {
	db  *sqlite.DB
	clk *clock.Fake
}

func newWorld(t *testing.T) *world {
	t.Helper()
	clk := clock.NewFake(t0)
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &world{db: db, clk: clk}
}

func (w *world) account(t *testing.T, id, limits string) {
	t.Helper()
	a := store.Account{ID: id}
	if limits != "" {
		a.Limits = json.RawMessage(limits)
	}
	if _, err := w.db.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
}

// run stores a run of account, finished (with a frame and a checkpoint)
// unless live.
func (w *world) run(t *testing.T, account, id string, live bool) {
	t.Helper()
	e := store.Execution{ID: id, AccountID: account, Digest: "d", Document: []byte(`{}`), Status: store.StatusRunning, BudgetMs: 1}
	if _, _, err := w.db.CreateExecution(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.AppendEvents(ctx, id, json.RawMessage(`{"f":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.db.SaveCheckpoint(ctx, id, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if !live {
		if err := w.db.UpdateExecution(ctx, account, id, store.ExecutionUpdate{Status: store.StatusSuccess}); err != nil {
			t.Fatal(err)
		}
	}
}

func (w *world) has(account, id string) bool {
	_, err := w.db.GetExecution(ctx, account, id)
	return err == nil
}

func (w *world) pruner(p retention.Policy, batch int) *retention.Pruner {
	return retention.New(w.db, p, retention.Options{Batch: batch, Pause: 20 * time.Millisecond, Reclaim: 1 << 20, Clock: w.clk})
}

// TestPassKeepsEachAccountItsAge: the server's age, an account's shorter
// and its for ever; live runs stay whatever their age; audit has its own.
func TestPassKeepsEachAccountItsAge(t *testing.T) {
	w := newWorld(t)
	w.account(t, "plain", "")
	w.account(t, "short", `{"retention_days":5}`)
	w.account(t, "keeper", `{"retention_days":-1}`)
	for _, a := range []string{"plain", "short", "keeper"} {
		w.run(t, a, a+"-done", false)
		w.run(t, a, a+"-live", true)
	}
	if err := w.db.AppendAudit(ctx, []store.AuditRecord{{Time: t0, Decision: store.DecisionAllow, Method: "m"}}); err != nil {
		t.Fatal(err)
	}
	p := w.pruner(retention.Policy{Runs: retention.Age(30 * day), Audit: retention.Age(7 * day)}, 10)

	w.clk.Advance(6 * day)
	r, err := p.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != 1 || r.Events != 1 || r.Checkpoints != 1 || r.Audit != 0 || w.has("short", "short-done") || !w.has("plain", "plain-done") {
		t.Fatalf("after 6 days: %+v", r)
	}

	w.clk.Advance(25 * day) // 31 days
	r, err = p.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != 1 || r.Audit != 1 || w.has("plain", "plain-done") || !w.has("keeper", "keeper-done") {
		t.Fatalf("after 31 days: %+v", r)
	}
	for _, a := range []string{"plain", "short", "keeper"} {
		if !w.has(a, a+"-live") {
			t.Fatalf("%s's live run was pruned", a)
		}
	}
	if last := p.Last(); last == nil || last.Runs != r.Runs {
		t.Fatalf("last pass: %+v", last)
	}
}

// TestPassGoesInBatchesWithPauses: a pass deletes a batch per transaction
// and pauses between batches.
func TestPassGoesInBatchesWithPauses(t *testing.T) {
	w := newWorld(t)
	w.account(t, "a", "")
	const runs, batch = 25, 10
	for i := range runs {
		w.run(t, "a", fmt.Sprintf("r-%02d", i), false)
	}
	p := w.pruner(retention.Policy{Runs: retention.Age(day)}, batch)
	w.clk.Advance(2 * day)
	r, err := p.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != runs || r.Events != runs {
		t.Fatalf("pass: %+v", r)
	}
	// 25 frames and 25 runs in batches of 10: at least two full batches,
	// each followed by a pause.
	pauses := 0
	for _, d := range w.clk.Sleeps() {
		if d == 20*time.Millisecond {
			pauses++
		}
	}
	if r.Batches < 2 || pauses != r.Batches {
		t.Fatalf("%d full batches, %d pauses", r.Batches, pauses)
	}
}

// TestForeverKeepsEverything: ages of 0 prune nothing.
func TestForeverKeepsEverything(t *testing.T) {
	w := newWorld(t)
	w.account(t, "a", "")
	w.run(t, "a", "old", false)
	p := w.pruner(retention.Policy{}, 10)
	w.clk.Advance(3650 * day)
	r, err := p.Prune(ctx)
	if err != nil || r.Runs != 0 || r.Accounts != 0 || !w.has("a", "old") {
		t.Fatalf("a pass keeping everything: %+v %v", r, err)
	}
}

// TestUpdateIsKeptInTheStore: an admin's ages win over the configuration's
// for every pruner of the store, until reset.
func TestUpdateIsKeptInTheStore(t *testing.T) {
	w := newWorld(t)
	config := retention.Policy{Runs: retention.Age(30 * day), Audit: retention.Age(30 * day)}
	p := w.pruner(config, 10)
	one := retention.Age(day)
	pol, err := p.Update(ctx, retention.Change{Runs: &one})
	if err != nil || pol.Runs != one || pol.Audit != config.Audit {
		t.Fatalf("update: %+v %v", pol, err)
	}
	other := w.pruner(config, 10) // another gateway, or after a restart
	st, err := other.State(ctx)
	if err != nil || st.Policy.Runs != one || st.Configured != config || strings.Join(st.SetByAdmin, ",") != "runs" || st.UpdatedAt == nil {
		t.Fatalf("state: %+v %v", st, err)
	}
	w.account(t, "a", "")
	w.run(t, "a", "old", false)
	w.clk.Advance(2 * day)
	if r, err := other.Prune(ctx); err != nil || r.Runs != 1 {
		t.Fatalf("a pass by the stored policy: %+v %v", r, err)
	}
	pol, err = p.Update(ctx, retention.Change{UnsetRuns: true, UnsetAudit: true})
	if err != nil || pol != config {
		t.Fatalf("reset: %+v %v", pol, err)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * day, "720h": 30 * day, "0s": 0, "0d": 0, " 90m ": 90 * time.Minute} {
		got, err := retention.ParseAge("runs", in)
		if err != nil || time.Duration(got) != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "30", "59m", "3651d", "-1d", "1y", "d", strings.Repeat("9", 100) + "d"} {
		_, err := retention.ParseAge("runs", in)
		if fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "runs") || len(err.Error()) > 300 {
			t.Errorf("%q: %v", in, err)
		}
	}
	if s := retention.Age(30 * day).String(); s != "30d" {
		t.Errorf("30 days written %q", s)
	}
	if s := retention.Age(36 * time.Hour).String(); s != "36h0m0s" {
		t.Errorf("36 hours written %q", s)
	}
}

// FuzzParseAge: any text is an age in bounds or an Invalid error.
func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"30d", "720h", "0s", "1y", "-5d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := retention.ParseAge("runs", s)
		if err != nil {
			if fault.KindOf(err) != fault.Invalid {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if d := time.Duration(a); d != 0 && (d < time.Hour || d > retention.MaxAge) {
			t.Fatalf("%q: %v out of bounds", s, d)
		}
		var back retention.Age
		if err := json.Unmarshal([]byte(fmt.Sprintf("%q", a.String())), &back); err != nil || back != a {
			t.Fatalf("%q: %v does not read back (%v, %v)", s, a, back, err)
		}
	})
}

// TestRunPrunesInTheBackground: Run passes every Interval until its
// context ends, and then returns.
func TestRunPrunesInTheBackground(t *testing.T) {
	w := newWorld(t) // the store's clock: runs finished on t0, long ago
	w.account(t, "a", "")
	w.run(t, "a", "old", false)
	p := retention.New(w.db, retention.Policy{Runs: retention.Age(day)}, retention.Options{Interval: 10 * time.Millisecond, Batch: 10})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { p.Run(runCtx); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for w.has("a", "old") {
		if time.Now().After(deadline) {
			t.Fatal("no background pass pruned the old run")
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return when its context ended")
	}
	if last := p.Last(); last == nil || last.Error != "" {
		t.Fatalf("last pass: %+v", last)
	}
}

// TestPassDropsPushConfigsAndTheirSecrets: a pruned run's A2A push
// notification configs go with it, their vault entries through
// DropSecrets; a live run's stay.
func TestPassDropsPushConfigsAndTheirSecrets(t *testing.T) {
	w := newWorld(t)
	w.account(t, "alice", "")
	w.run(t, "alice", "done", false)
	w.run(t, "alice", "live", true)
	for _, c := range []store.PushConfig{
		{AccountID: "alice", TaskID: "done", ID: "a", URL: "https://h.example.com/a", TokenRef: "a2a-push.a.token", CredentialsRef: "a2a-push.a.credentials"},
		{AccountID: "alice", TaskID: "done", ID: "b", URL: "https://h.example.com/b"},
		{AccountID: "alice", TaskID: "live", ID: "c", URL: "https://h.example.com/c", TokenRef: "a2a-push.c.token"},
	} {
		if _, _, err := w.db.PutPushConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	var dropped []string
	p := retention.New(w.db, retention.Policy{Runs: retention.Age(day)}, retention.Options{Batch: 10, Clock: w.clk,
		DropSecrets: func(_ context.Context, ids []string) { dropped = append(dropped, ids...) }})
	w.clk.Advance(2 * day)
	r, err := p.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != 1 || r.PushConfigs != 2 || w.has("alice", "done") {
		t.Fatalf("pass: %+v", r)
	}
	if fmt.Sprint(dropped) != "[a2a-push.a.token a2a-push.a.credentials]" {
		t.Fatalf("secrets dropped: %v", dropped)
	}
	if left, err := w.db.ListPushConfigs(ctx, "alice", "live"); err != nil || len(left) != 1 {
		t.Fatalf("the live run's configs: %d, %v", len(left), err)
	}
}
