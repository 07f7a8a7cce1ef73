package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// testPushConfigs: A2A push notification configs per account and task,
// the bound per task, and the senders' cursor: one claim of many wins, a
// lease keeps others off, settling advances the cursor once.
func testPushConfigs(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	hook := store.PushConfig{AccountID: "alice", TaskID: "awf-1", ID: "hook", URL: "https://hooks.example.com/a", TokenRef: "a2a-push.x.token"}
	got, replaced, err := s.PutPushConfig(ctx, hook)
	must(t, err)
	if replaced != nil || got.Seq == 0 || got.CreatedAt.IsZero() || got.Sent != 0 || got.Done {
		t.Fatalf("put: %+v %+v", got, replaced)
	}
	if read, err := s.GetPushConfig(ctx, "alice", "awf-1", "hook"); err != nil || read.URL != hook.URL || read.TokenRef != hook.TokenRef || read.Seq != got.Seq {
		t.Fatalf("get: %v %+v", err, read)
	}
	if _, err := s.GetPushConfig(ctx, "bob", "awf-1", "hook"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("another account's config: %v", err)
	}
	now := time.Now()
	// Senders claiming at once (gateways sharing the database): one wins.
	var wins atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, err := s.ClaimPushConfig(ctx, got.Seq, 0, now, now.Add(time.Minute)); err == nil && ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d of 8 concurrent claims won, want 1", wins.Load())
	}
	if ok, _ := s.ClaimPushConfig(ctx, got.Seq, 0, now, now.Add(time.Minute)); ok {
		t.Fatal("a second claim under the lease won")
	}
	if pending, _ := s.PendingPushConfigs(ctx, 0, now, 10); len(pending) != 0 {
		t.Fatalf("a claimed config is pending: %+v", pending)
	}
	// Replacing keeps the cursor and says what it replaced.
	hook.URL = "https://hooks.example.com/b"
	again, replaced, err := s.PutPushConfig(ctx, hook)
	must(t, err)
	if replaced == nil || replaced.URL != "https://hooks.example.com/a" || again.Seq != got.Seq || again.ClaimUntil == nil {
		t.Fatalf("replace: %+v %+v", again, replaced)
	}
	if ok, err := s.SettlePushConfig(ctx, got.Seq, 0, true, "TASK_STATE_WORKING", false); err != nil || !ok {
		t.Fatalf("settle: %v %v", ok, err)
	}
	if ok, _ := s.SettlePushConfig(ctx, got.Seq, 0, true, "TASK_STATE_WORKING", false); ok {
		t.Fatal("a cursor advanced twice from one value")
	}
	pending, err := s.PendingPushConfigs(ctx, 0, now, 10)
	must(t, err)
	if len(pending) != 1 || pending[0].Sent != 1 || pending[0].SentState != "TASK_STATE_WORKING" || pending[0].URL != "https://hooks.example.com/b" {
		t.Fatalf("pending: %+v", pending)
	}
	if ok, _ := s.ClaimPushConfig(ctx, got.Seq, 1, now, now.Add(time.Minute)); !ok {
		t.Fatal("claim of the next notification")
	}
	// Released, not advanced: claimable again at the same cursor.
	if ok, _ := s.SettlePushConfig(ctx, got.Seq, 1, false, "", false); !ok {
		t.Fatal("release")
	}
	if ok, _ := s.ClaimPushConfig(ctx, got.Seq, 1, now, now.Add(time.Minute)); !ok {
		t.Fatal("claim after a release")
	}
	if ok, _ := s.SettlePushConfig(ctx, got.Seq, 1, true, "TASK_STATE_COMPLETED", true); !ok {
		t.Fatal("settle the last")
	}
	if pending, _ := s.PendingPushConfigs(ctx, 0, now, 10); len(pending) != 0 {
		t.Fatalf("a done config is pending: %+v", pending)
	}
	// The bound per task, with an error naming it.
	for i := 1; i < store.MaxPushConfigsPerTask; i++ {
		_, _, err := s.PutPushConfig(ctx, store.PushConfig{AccountID: "alice", TaskID: "awf-1", ID: fmt.Sprintf("h%d", i), URL: "https://hooks.example.com/"})
		must(t, err)
	}
	_, _, err = s.PutPushConfig(ctx, store.PushConfig{AccountID: "alice", TaskID: "awf-1", ID: "one-more", URL: "https://hooks.example.com/"})
	wantKind(t, err, fault.Invalid, "a config over the bound")
	if fe := fault.From(err); fe.Details["limit"] == nil {
		t.Fatalf("the error does not name the limit: %+v", fe)
	}
	list, err := s.ListPushConfigs(ctx, "alice", "awf-1")
	must(t, err)
	if len(list) != store.MaxPushConfigsPerTask || list[0].ID != "h1" {
		t.Fatalf("list: %d %+v", len(list), list[0])
	}
	if list, _ := s.ListPushConfigs(ctx, "bob", "awf-1"); len(list) != 0 {
		t.Fatalf("bob sees alice's configs: %+v", list)
	}
	deleted, err := s.DeletePushConfig(ctx, "alice", "awf-1", "hook")
	must(t, err)
	if deleted.TokenRef != "a2a-push.x.token" {
		t.Fatalf("deleted: %+v", deleted)
	}
	_, err = s.DeletePushConfig(ctx, "alice", "awf-1", "hook")
	wantKind(t, err, fault.NotFound, "a deleted config")
	_, _, err = s.PutPushConfig(ctx, store.PushConfig{AccountID: "alice", TaskID: "awf-1", ID: "bad id", URL: "https://x"})
	wantKind(t, err, fault.Invalid, "an id with a space")
}
