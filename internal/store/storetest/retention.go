package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// mkRun stores a run of account with frames events and a checkpoint, and
// moves it to status (through running, as the runners do).
func mkRun(t *testing.T, s store.Store, account, id string, status store.Status, frames int) {
	t.Helper()
	_, _, err := s.CreateExecution(ctx, mkExecution(id, account))
	must(t, err)
	if status != store.StatusQueued {
		must(t, s.UpdateExecution(ctx, account, id, store.ExecutionUpdate{Status: store.StatusRunning}))
	}
	for i := range frames {
		_, err := s.AppendEvents(ctx, id, json.RawMessage(fmt.Sprintf(`{"frame":%d}`, i)))
		must(t, err)
	}
	must(t, s.SaveCheckpoint(ctx, id, json.RawMessage(`{"step":1}`)))
	if status != store.StatusQueued && status != store.StatusRunning {
		must(t, s.UpdateExecution(ctx, account, id, store.ExecutionUpdate{Status: status}))
	}
}

// runKept fails t unless the run, its frames and its checkpoint are there.
func runKept(t *testing.T, s store.Store, account, id string, frames int) {
	t.Helper()
	if _, err := s.GetExecution(ctx, account, id); err != nil {
		t.Fatalf("%s was pruned: %v", id, err)
	}
	evs, err := s.ListEvents(ctx, id, 0, 0)
	must(t, err)
	if len(evs) != frames {
		t.Fatalf("%s keeps %d frames, want %d", id, len(evs), frames)
	}
	if _, err := s.LoadCheckpoint(ctx, id); err != nil {
		t.Fatalf("%s lost its checkpoint: %v", id, err)
	}
}

// testPruneRuns: prune takes the account's finished runs older than the
// cutoff with their frames and checkpoints, a bounded batch a call, and
// never a live run or another account's.
func testPruneRuns(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	const frames = 3
	finished := []store.Status{store.StatusSuccess, store.StatusFailed, store.StatusPartial, store.StatusCancelled}
	for i, st := range finished {
		mkRun(t, s, "alice", fmt.Sprintf("done-%d", i), st, frames)
	}
	live := []store.Status{store.StatusQueued, store.StatusRunning, store.StatusWaiting}
	for i, st := range live {
		mkRun(t, s, "alice", fmt.Sprintf("live-%d", i), st, frames)
	}
	// waiting is reached from running
	mkRun(t, s, "bob", "bob-done", store.StatusSuccess, frames)

	// Nothing finished before an hour ago.
	p, err := s.PruneRuns(ctx, "alice", time.Now().Add(-time.Hour), 10)
	must(t, err)
	if p != (store.Pruned{}) {
		t.Fatalf("pruned runs finished after the cutoff: %+v", p)
	}

	later := time.Now().Add(time.Hour)
	const limit = 2
	var total store.Pruned
	for calls := 0; ; calls++ {
		if calls > 20 {
			t.Fatal("prune never says it is done")
		}
		p, err := s.PruneRuns(ctx, "alice", later, limit)
		must(t, err)
		if p.Runs > limit || p.Events > limit || p.Checkpoints > limit {
			t.Fatalf("one call went past its batch of %d: %+v", limit, p)
		}
		total = total.Add(p)
		if !p.More {
			break
		}
	}
	want := store.Pruned{Runs: int64(len(finished)), Events: int64(len(finished) * frames), Checkpoints: int64(len(finished)), More: true}
	if total != want {
		t.Fatalf("pruned %+v, want %+v", total, want)
	}
	for i := range finished {
		id := fmt.Sprintf("done-%d", i)
		wantKind(t, func() error { _, err := s.GetExecution(ctx, "alice", id); return err }(), fault.NotFound, "a pruned run")
		if evs, err := s.ListEvents(ctx, id, 0, 0); err != nil || len(evs) != 0 {
			t.Fatalf("%s's frames are left: %d %v", id, len(evs), err)
		}
		wantKind(t, func() error { _, err := s.LoadCheckpoint(ctx, id); return err }(), fault.NotFound, "a pruned run's checkpoint")
	}
	for i := range live {
		runKept(t, s, "alice", fmt.Sprintf("live-%d", i), frames)
	}
	runKept(t, s, "bob", "bob-done", frames)

	// Once done, a prune finds nothing; another account's cutoff is its own.
	p, err = s.PruneRuns(ctx, "alice", later, limit)
	must(t, err)
	if p != (store.Pruned{}) {
		t.Fatalf("a second prune found %+v", p)
	}
	p, err = s.PruneRuns(ctx, "bob", later, 10)
	must(t, err)
	if p.Runs != 1 || p.Events != frames || p.More {
		t.Fatalf("bob's prune: %+v", p)
	}

	// The freed space goes back (SQLite) or is vacuumed (PostgreSQL)
	// without error; what the file shrank by is the backend's business.
	if n, err := s.ReclaimSpace(ctx, 4<<20); err != nil || n < 0 {
		t.Fatalf("reclaim after a prune: %d %v", n, err)
	}
	for _, bad := range []int{0, -1, store.MaxPruneBatch + 1} {
		_, err := s.PruneRuns(ctx, "alice", later, bad)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("batch %d", bad))
	}
	_, err = s.PruneRuns(ctx, "alice", time.Time{}, 1)
	wantKind(t, err, fault.Invalid, "no cutoff")
}

// testPruneRunsConcurrent: two pruners at once (two gateways on one
// PostgreSQL) delete every run once, and neither fails.
func testPruneRunsConcurrent(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	const runs, frames = 12, 4
	for i := range runs {
		mkRun(t, s, "alice", fmt.Sprintf("r-%02d", i), store.StatusSuccess, frames)
	}
	later := time.Now().Add(time.Hour)
	totals := make([]store.Pruned, 4)
	parallel(t, len(totals), func(i int) error {
		for {
			p, err := s.PruneRuns(ctx, "alice", later, 3)
			if err != nil {
				return err
			}
			totals[i] = totals[i].Add(p)
			if !p.More {
				return nil
			}
		}
	})
	var sum store.Pruned
	for _, p := range totals {
		sum = sum.Add(p)
	}
	if sum.Runs != runs || sum.Events != runs*frames || sum.Checkpoints != runs {
		t.Fatalf("the pruners together deleted %+v, want %d runs, %d frames", sum, runs, runs*frames)
	}
}

// testStorageStats: the counts are the rows stored, and a run costs bytes.
func testStorageStats(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	for i := range 5 {
		mkRun(t, s, "alice", fmt.Sprintf("r-%d", i), store.StatusSuccess, 2)
	}
	must(t, s.AppendAudit(ctx, []store.AuditRecord{{Time: time.Now(), Decision: store.DecisionAllow, Method: "m"}}))
	st, err := s.StorageStats(ctx)
	if err != nil {
		t.Fatalf("%v (%v)", err, fault.From(err).Cause)
	}
	rows := map[string]int64{}
	for _, tb := range st.Tables {
		rows[tb.Name] = tb.Rows
		if tb.Bytes <= 0 {
			t.Errorf("table %s: %d bytes", tb.Name, tb.Bytes)
		}
	}
	want := map[string]int64{"executions": 5, "events": 10, "checkpoints": 5, "audit": 1}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	if st.DatabaseBytes <= 0 || st.BytesPerExecution <= 0 || st.Backend == "" {
		t.Fatalf("stats %+v", st)
	}
	if st.BytesPerExecution != store.BytesPerExecution(st.Tables) {
		t.Fatalf("bytes per execution %d is not the tables' %d", st.BytesPerExecution, store.BytesPerExecution(st.Tables))
	}
}

// testPrunePushConfigs: the A2A push notification configs of the runs a
// prune takes go first, returned for their vault entries, with those of
// tasks no longer stored; a live run's and another account's stay.
func testPrunePushConfigs(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	mkRun(t, s, "alice", "done-1", store.StatusSuccess, 1)
	mkRun(t, s, "alice", "live-1", store.StatusRunning, 1)
	mkRun(t, s, "bob", "bob-done", store.StatusSuccess, 1)
	put := func(account, task, id string) {
		t.Helper()
		_, _, err := s.PutPushConfig(ctx, store.PushConfig{AccountID: account, TaskID: task, ID: id, URL: "https://hooks.example.com/" + id,
			TokenRef: "a2a-push." + id + ".token", CredentialsRef: "a2a-push." + id + ".credentials"})
		must(t, err)
	}
	put("alice", "done-1", "a")
	put("alice", "done-1", "b")
	put("alice", "live-1", "c")
	put("alice", "gone-1", "d") // its task was pruned before configs were
	put("bob", "bob-done", "e")

	if got, err := s.PrunePushConfigs(ctx, "alice", time.Now().Add(-time.Hour), 10); err != nil || len(got) != 0 {
		t.Fatalf("before the cutoff: %+v, %v", got, err)
	}
	later := time.Now().Add(time.Hour)
	var pruned []string
	for calls := 0; ; calls++ {
		if calls > 5 {
			t.Fatal("PrunePushConfigs never runs out")
		}
		got, err := s.PrunePushConfigs(ctx, "alice", later, 2)
		must(t, err)
		if len(got) > 2 {
			t.Fatalf("a batch of 2 returned %d", len(got))
		}
		for _, c := range got {
			if c.TokenRef != "a2a-push."+c.ID+".token" || c.CredentialsRef != "a2a-push."+c.ID+".credentials" {
				t.Fatalf("pruned config without its vault entries: %+v", c)
			}
			pruned = append(pruned, c.ID)
		}
		if len(got) == 0 {
			break
		}
	}
	if fmt.Sprint(pruned) != "[a b d]" {
		t.Fatalf("pruned %v, want the finished run's a and b and the orphan d", pruned)
	}
	for task, want := range map[string]int{"done-1": 0, "gone-1": 0, "live-1": 1} {
		if got, err := s.ListPushConfigs(ctx, "alice", task); err != nil || len(got) != want {
			t.Fatalf("%s keeps %d configs (%v), want %d", task, len(got), err, want)
		}
	}
	if got, err := s.ListPushConfigs(ctx, "bob", "bob-done"); err != nil || len(got) != 1 {
		t.Fatalf("bob's config: %d, %v", len(got), err)
	}
	if _, err := s.PrunePushConfigs(ctx, "alice", later, 0); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("a batch of 0: %v", err)
	}
}
