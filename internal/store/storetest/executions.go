package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func testExecutionCreateGet(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	e := store.Execution{ID: "ex-1", AccountID: "alice", ClientID: "client-run-1", Digest: "sha256:abc",
		Document: []byte("{\"beginExecution\":{}}\n"), Input: json.RawMessage(`{"user":"x"}`), Status: store.StatusQueued,
		Async: true, SessionID: "sess-1", BudgetMs: 3_600_000}
	got, created, err := s.CreateExecution(ctx, e)
	must(t, err)
	if !created || got.CreatedAt.IsZero() || got.StartedAt != nil || got.FinishedAt != nil {
		t.Fatalf("created %v: %+v", created, got)
	}
	back, err := s.GetExecution(ctx, "alice", "ex-1")
	must(t, err)
	if back.ID != e.ID || back.ClientID != e.ClientID || back.Digest != e.Digest || string(back.Document) != string(e.Document) ||
		!rawEq(back.Input, e.Input) || back.Status != store.StatusQueued || !back.Async || back.SessionID != "sess-1" ||
		back.BudgetMs != 3_600_000 || !back.CreatedAt.Equal(got.CreatedAt) || back.Result != nil {
		t.Fatalf("got back %+v", back)
	}

	must(t, s.UpdateExecution(ctx, "alice", "ex-1", store.ExecutionUpdate{Status: store.StatusRunning}))
	back, _ = s.GetExecution(ctx, "alice", "ex-1")
	if back.Status != store.StatusRunning || back.StartedAt == nil || back.FinishedAt != nil {
		t.Fatalf("running: %+v", back)
	}
	started := *back.StartedAt
	must(t, s.UpdateExecution(ctx, "alice", "ex-1", store.ExecutionUpdate{Status: store.StatusWaiting}))
	must(t, s.UpdateExecution(ctx, "alice", "ex-1", store.ExecutionUpdate{Status: store.StatusRunning}))
	result := json.RawMessage(`{"execution_id":"ex-1","status":"success","results":{"a":1}}`)
	must(t, s.UpdateExecution(ctx, "alice", "ex-1", store.ExecutionUpdate{Status: store.StatusSuccess, Result: result, Errors: json.RawMessage(`[]`)}))
	back, _ = s.GetExecution(ctx, "alice", "ex-1")
	if back.Status != store.StatusSuccess || !rawEq(back.Result, result) || string(back.Errors) != "[]" ||
		back.FinishedAt == nil || !back.StartedAt.Equal(started) || back.FinishedAt.Before(started) {
		t.Fatalf("final: %+v", back)
	}

	// Created directly as running (a synchronous call): started at creation.
	sync := mkExecution("ex-sync", "alice")
	sync.Status = store.StatusRunning
	got, _, err = s.CreateExecution(ctx, sync)
	must(t, err)
	if got.StartedAt == nil || !got.StartedAt.Equal(got.CreatedAt) {
		t.Fatalf("sync start: %+v", got)
	}

	_, _, err = s.CreateExecution(ctx, mkExecution("ex-1", "alice"))
	wantKind(t, err, fault.Conflict, "same server id twice")
	_, _, err = s.CreateExecution(ctx, mkExecution("ex-x", "nobody"))
	wantKind(t, err, fault.NotFound, "execution of a missing account")
	_, err = s.GetExecution(ctx, "alice", "missing")
	wantKind(t, err, fault.NotFound, "missing execution")
	wantKind(t, s.UpdateExecution(ctx, "alice", "missing", store.ExecutionUpdate{Status: store.StatusRunning}), fault.NotFound, "update missing")
}

func testExecutionIdempotency(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	e := mkExecution("ex-1", "alice")
	e.ClientID = "my-run"
	first, created, err := s.CreateExecution(ctx, e)
	must(t, err)
	if !created {
		t.Fatal("first not created")
	}

	// Same client id, same document: the earlier execution, nothing new.
	again := mkExecution("ex-2", "alice")
	again.ClientID, again.Digest = "my-run", e.Digest
	got, created, err := s.CreateExecution(ctx, again)
	must(t, err)
	if created || got.ID != "ex-1" || !got.CreatedAt.Equal(first.CreatedAt) || string(got.Document) != string(e.Document) {
		t.Fatalf("replay: created %v, %+v", created, got)
	}
	_, err = s.GetExecution(ctx, "alice", "ex-2")
	wantKind(t, err, fault.NotFound, "the replay stored nothing")

	// Same client id, other document: Conflict.
	other := mkExecution("ex-3", "alice")
	other.ClientID, other.Digest = "my-run", "sha256:different"
	_, _, err = s.CreateExecution(ctx, other)
	wantKind(t, err, fault.Conflict, "same client id, other document")
	if !strings.Contains(err.Error(), "my-run") {
		t.Errorf("conflict does not name the executionId: %v", err)
	}

	// The key is per account: bob may use the same client id.
	b := mkExecution("ex-b", "bob")
	b.ClientID, b.Digest = "my-run", "sha256:bobs"
	_, created, err = s.CreateExecution(ctx, b)
	must(t, err)
	if !created {
		t.Fatal("bob's execution not created")
	}

	// Found by client id, per account.
	fa, err := s.FindExecutionByClientID(ctx, "alice", "my-run")
	must(t, err)
	fb, err := s.FindExecutionByClientID(ctx, "bob", "my-run")
	must(t, err)
	if fa.AccountID != "alice" || fb.ID != "ex-b" || fa.ID == fb.ID {
		t.Fatalf("find by client id: alice %s, bob %s", fa.ID, fb.ID)
	}
	_, err = s.FindExecutionByClientID(ctx, "alice", "never-used")
	wantKind(t, err, fault.NotFound, "unknown client id")

	// The replay returns the execution as it is now, final or not.
	must(t, s.UpdateExecution(ctx, "alice", "ex-1", store.ExecutionUpdate{Status: store.StatusFailed, Errors: json.RawMessage(`[{"type":"ExecutionError"}]`)}))
	got, created, err = s.CreateExecution(ctx, again)
	must(t, err)
	if created || got.Status != store.StatusFailed || got.FinishedAt == nil {
		t.Fatalf("replay after finish: %+v", got)
	}

	// Executions without a client id never collide.
	for i := range 3 {
		_, created, err := s.CreateExecution(ctx, mkExecution(fmt.Sprintf("anon-%d", i), "alice"))
		must(t, err)
		if !created {
			t.Fatal("anonymous execution not created")
		}
	}
}

func testExecutionScoping(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	_, _, err := s.CreateExecution(ctx, mkExecution("ex-a", "alice"))
	must(t, err)
	_, err = s.GetExecution(ctx, "bob", "ex-a")
	wantKind(t, err, fault.NotFound, "bob reads alice's execution")
	wantKind(t, s.UpdateExecution(ctx, "bob", "ex-a", store.ExecutionUpdate{Status: store.StatusCancelled}), fault.NotFound, "bob cancels alice's execution")
	back, err := s.GetExecution(ctx, "alice", "ex-a")
	must(t, err)
	if back.Status != store.StatusQueued {
		t.Fatalf("bob's update landed: %+v", back)
	}
	list, _, err := s.ListExecutions(ctx, "bob", store.ExecutionQuery{})
	must(t, err)
	if len(list) != 0 {
		t.Fatalf("bob lists %+v", list)
	}
}

func testExecutionStatusGuard(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	for _, final := range []store.Status{store.StatusSuccess, store.StatusFailed, store.StatusPartial, store.StatusCancelled} {
		id := "ex-" + string(final)
		_, _, err := s.CreateExecution(ctx, mkExecution(id, "alice"))
		must(t, err)
		must(t, s.UpdateExecution(ctx, "alice", id, store.ExecutionUpdate{Status: store.StatusRunning}))
		must(t, s.UpdateExecution(ctx, "alice", id, store.ExecutionUpdate{Status: final, Result: json.RawMessage(`{"v":1}`)}))
		for _, next := range store.Statuses {
			err := s.UpdateExecution(ctx, "alice", id, store.ExecutionUpdate{Status: next, Result: json.RawMessage(`{"v":2}`)})
			wantKind(t, err, fault.Conflict, fmt.Sprintf("%s -> %s", final, next))
			if !strings.Contains(err.Error(), string(final)) {
				t.Errorf("guard error does not name the status: %v", err)
			}
		}
		back, _ := s.GetExecution(ctx, "alice", id)
		if back.Status != final || !rawEq(back.Result, json.RawMessage(`{"v":1}`)) {
			t.Fatalf("a final execution changed: %+v", back)
		}
	}
	// Non-final statuses move freely (recovery may queue a running one again).
	_, _, err := s.CreateExecution(ctx, mkExecution("ex-free", "alice"))
	must(t, err)
	for _, st := range []store.Status{store.StatusRunning, store.StatusQueued, store.StatusWaiting, store.StatusRunning, store.StatusPartial} {
		must(t, s.UpdateExecution(ctx, "alice", "ex-free", store.ExecutionUpdate{Status: st}))
	}
	wantKind(t, s.UpdateExecution(ctx, "alice", "ex-free", store.ExecutionUpdate{Status: "done"}), fault.Invalid, "unknown status")
}

func testExecutionPaging(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	const n = 23
	for i := range n {
		_, _, err := s.CreateExecution(ctx, mkExecution(fmt.Sprintf("a-%02d", i), "alice"))
		must(t, err)
		if i%3 == 0 {
			must(t, s.UpdateExecution(ctx, "alice", fmt.Sprintf("a-%02d", i), store.ExecutionUpdate{Status: store.StatusSuccess, Result: json.RawMessage(`{"big":"result"}`)}))
		}
		_, _, err = s.CreateExecution(ctx, mkExecution(fmt.Sprintf("b-%02d", i), "bob"))
		must(t, err)
	}
	collect := func(q store.ExecutionQuery) []string {
		t.Helper()
		var ids []string
		for pages := 0; ; pages++ {
			if pages > n+1 {
				t.Fatal("paging does not end")
			}
			page, next, err := s.ListExecutions(ctx, "alice", q)
			must(t, err)
			for _, e := range page {
				if e.AccountID != "alice" {
					t.Fatalf("listed another account's execution %+v", e)
				}
				if len(e.Document) != 0 || len(e.Result) != 0 || len(e.Input) != 0 {
					t.Fatalf("list carries large fields: %+v", e)
				}
				ids = append(ids, e.ID)
			}
			if next == "" {
				return ids
			}
			q.Cursor = next
		}
	}
	ids := collect(store.ExecutionQuery{Page: store.Page{Limit: 5}})
	if len(ids) != n || ids[0] != "a-22" || ids[n-1] != "a-00" {
		t.Fatalf("newest first: %v", ids)
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	if !slices.Equal(ids, sorted) {
		t.Fatalf("not newest first: %v", ids)
	}

	// A cursor stays valid while executions are added: the next page goes on
	// where the last one stopped.
	page, next, err := s.ListExecutions(ctx, "alice", store.ExecutionQuery{Page: store.Page{Limit: 4}})
	must(t, err)
	_, _, err = s.CreateExecution(ctx, mkExecution("a-new", "alice"))
	must(t, err)
	page2, _, err := s.ListExecutions(ctx, "alice", store.ExecutionQuery{Page: store.Page{Cursor: next, Limit: 4}})
	must(t, err)
	if page[3].ID != "a-19" || page2[0].ID != "a-18" {
		t.Fatalf("cursor after an insert: %v / %v", page[3].ID, page2[0].ID)
	}

	done := collect(store.ExecutionQuery{Status: []store.Status{store.StatusSuccess}, Page: store.Page{Limit: 3}})
	if len(done) != 8 || done[0] != "a-21" {
		t.Fatalf("status filter: %v", done)
	}
	both := collect(store.ExecutionQuery{Status: []store.Status{store.StatusSuccess, store.StatusQueued}})
	if len(both) != n+1 {
		t.Fatalf("two statuses: %d", len(both))
	}

	for _, bad := range []store.ExecutionQuery{
		{Page: store.Page{Cursor: "not-a-cursor"}},
		{Page: store.Page{Cursor: "-5"}},
		{Page: store.Page{Limit: store.MaxPageSize + 1}},
		{Status: []store.Status{"nope"}},
	} {
		_, _, err := s.ListExecutions(ctx, "alice", bad)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("query %+v", bad))
	}
}

func testExecutionUnfinished(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	want := map[string]bool{}
	for i := range 12 {
		acct := []string{"alice", "bob"}[i%2]
		id := fmt.Sprintf("ex-%02d", i)
		e := mkExecution(id, acct)
		e.Input = json.RawMessage(`{"i":` + fmt.Sprint(i) + `}`)
		_, _, err := s.CreateExecution(ctx, e)
		must(t, err)
		switch i % 4 {
		case 0:
			must(t, s.UpdateExecution(ctx, acct, id, store.ExecutionUpdate{Status: store.StatusSuccess}))
		case 1:
			must(t, s.UpdateExecution(ctx, acct, id, store.ExecutionUpdate{Status: store.StatusRunning}))
			want[id] = true
		case 2:
			must(t, s.UpdateExecution(ctx, acct, id, store.ExecutionUpdate{Status: store.StatusWaiting}))
			want[id] = true
		default:
			want[id] = true // queued
		}
	}
	var got []string
	cursor := ""
	for {
		page, next, err := s.ListUnfinished(ctx, store.KindA2E, store.Page{Cursor: cursor, Limit: 4})
		must(t, err)
		for _, e := range page {
			if e.Status.Final() || len(e.Document) == 0 || len(e.Input) == 0 {
				t.Fatalf("unfinished list gave %+v", e)
			}
			got = append(got, e.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if len(got) != len(want) || !slices.IsSorted(got) {
		t.Fatalf("unfinished %v, want %d oldest first", got, len(want))
	}
	for _, id := range got {
		if !want[id] {
			t.Fatalf("%s is not unfinished", id)
		}
	}
}

func testExecutionBounds(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	big := func(n int) json.RawMessage { return json.RawMessage(`"` + strings.Repeat("x", n) + `"`) }
	cases := map[string]func(e *store.Execution){
		"no id":          func(e *store.Execution) { e.ID = "" },
		"bad id":         func(e *store.Execution) { e.ID = "a/b" },
		"no digest":      func(e *store.Execution) { e.Digest = "" },
		"no document":    func(e *store.Execution) { e.Document = nil },
		"huge document":  func(e *store.Execution) { e.Document = make([]byte, store.MaxDocumentBytes+1) },
		"huge input":     func(e *store.Execution) { e.Input = big(store.MaxInputBytes) },
		"bad input":      func(e *store.Execution) { e.Input = json.RawMessage(`{`) },
		"bad status":     func(e *store.Execution) { e.Status = "" },
		"long client id": func(e *store.Execution) { e.ClientID = strings.Repeat("c", store.MaxClientIDBytes+1) },
		"ctl client id":  func(e *store.Execution) { e.ClientID = "a\x00b" },
		"negative":       func(e *store.Execution) { e.BudgetMs = -1 },
	}
	for name, mutate := range cases {
		e := mkExecution("ex-bound", "alice")
		mutate(&e)
		_, _, err := s.CreateExecution(ctx, e)
		wantKind(t, err, fault.Invalid, name)
		fe := fault.From(err)
		if fe.Details["field"] == nil && name != "negative" {
			t.Errorf("%s: error does not name the field: %+v", name, fe)
		}
	}
	_, _, err := s.CreateExecution(ctx, mkExecution("ex-ok", "alice"))
	must(t, err)
	err = s.UpdateExecution(ctx, "alice", "ex-ok", store.ExecutionUpdate{Status: store.StatusSuccess, Result: big(store.MaxResultBytes)})
	wantKind(t, err, fault.Invalid, "huge result")
	err = s.UpdateExecution(ctx, "alice", "ex-ok", store.ExecutionUpdate{Status: store.StatusSuccess, Errors: json.RawMessage(`[`)})
	wantKind(t, err, fault.Invalid, "bad errors")
	back, _ := s.GetExecution(ctx, "alice", "ex-ok")
	if back.Status != store.StatusQueued {
		t.Fatalf("a refused update landed: %+v", back)
	}
}
