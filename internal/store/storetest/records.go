package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func testCheckpoints(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	_, _, err := s.CreateExecution(ctx, mkExecution("ex-1", "alice"))
	must(t, err)
	_, err = s.LoadCheckpoint(ctx, "ex-1")
	wantKind(t, err, fault.NotFound, "no checkpoint yet")
	must(t, s.SaveCheckpoint(ctx, "ex-1", json.RawMessage(`{"version":1,"finished":["0"]}`)))
	must(t, s.SaveCheckpoint(ctx, "ex-1", json.RawMessage(`{"version":1,"finished":["0","1"]}`)))
	got, err := s.LoadCheckpoint(ctx, "ex-1")
	must(t, err)
	if !rawEq(got, json.RawMessage(`{"version":1,"finished":["0","1"]}`)) {
		t.Fatalf("latest checkpoint: %s", got)
	}
	wantKind(t, s.SaveCheckpoint(ctx, "ex-none", json.RawMessage(`{}`)), fault.NotFound, "checkpoint of a missing execution")
	wantKind(t, s.SaveCheckpoint(ctx, "ex-1", json.RawMessage(`{`)), fault.Invalid, "broken checkpoint")
	wantKind(t, s.SaveCheckpoint(ctx, "ex-1", nil), fault.Invalid, "empty checkpoint")
	wantKind(t, s.SaveCheckpoint(ctx, "", json.RawMessage(`{}`)), fault.Invalid, "checkpoint without execution id")
}

func testEvents(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	for _, id := range []string{"ex-1", "ex-2"} {
		_, _, err := s.CreateExecution(ctx, mkExecution(id, "alice"))
		must(t, err)
	}
	frame := func(i int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"kind":"progress","n":%d}`, i)) }
	last, err := s.AppendEvents(ctx, "ex-1", frame(1), frame(2), frame(3))
	must(t, err)
	if last != 3 {
		t.Fatalf("last seq %d", last)
	}
	last, err = s.AppendEvents(ctx, "ex-1", frame(4))
	must(t, err)
	if last != 4 {
		t.Fatalf("last seq %d", last)
	}
	last, err = s.AppendEvents(ctx, "ex-2", frame(1))
	must(t, err)
	if last != 1 {
		t.Fatalf("sequences are per execution: %d", last)
	}
	evs, err := s.ListEvents(ctx, "ex-1", 0, 0)
	must(t, err)
	if len(evs) != 4 {
		t.Fatalf("events: %+v", evs)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.ExecutionID != "ex-1" || !rawEq(ev.Data, frame(i+1)) || ev.CreatedAt.IsZero() {
			t.Fatalf("event %d: %+v", i, ev)
		}
	}
	evs, err = s.ListEvents(ctx, "ex-1", 2, 1)
	must(t, err)
	if len(evs) != 1 || evs[0].Seq != 3 {
		t.Fatalf("after 2, limit 1: %+v", evs)
	}
	evs, err = s.ListEvents(ctx, "ex-1", 4, 10)
	must(t, err)
	if len(evs) != 0 {
		t.Fatalf("after the last: %+v", evs)
	}
	_, err = s.ListEvents(ctx, "ex-1", 0, store.MaxPageSize+1)
	wantKind(t, err, fault.Invalid, "page over the limit")

	_, err = s.AppendEvents(ctx, "ex-none", frame(1))
	wantKind(t, err, fault.NotFound, "events of a missing execution")
	_, err = s.AppendEvents(ctx, "ex-1")
	wantKind(t, err, fault.Invalid, "no frames")
	_, err = s.AppendEvents(ctx, "ex-1", frame(5), json.RawMessage(`{bad`))
	wantKind(t, err, fault.Invalid, "broken frame")
	_, err = s.AppendEvents(ctx, "ex-1", json.RawMessage(`"`+strings.Repeat("x", store.MaxEventBytes)+`"`))
	wantKind(t, err, fault.Invalid, "huge frame")
	evs, _ = s.ListEvents(ctx, "ex-1", 0, 0)
	if len(evs) != 4 {
		t.Fatalf("a refused append landed: %d events", len(evs))
	}

	// The per-execution bound: fill ex-2 to the limit in big appends.
	batch := make([]json.RawMessage, store.MaxEventsPerAppend)
	for i := range batch {
		batch[i] = json.RawMessage(`{}`)
	}
	n := int64(1)
	for n+int64(len(batch)) <= store.MaxEventsPerExecution {
		n, err = s.AppendEvents(ctx, "ex-2", batch...)
		must(t, err)
	}
	_, err = s.AppendEvents(ctx, "ex-2", batch[:store.MaxEventsPerExecution-int(n)+1]...)
	wantKind(t, err, fault.Invalid, "events over the per-execution bound")
}

func testAudit(t *testing.T, s store.Store) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var recs []store.AuditRecord
	for i := range 30 {
		r := store.AuditRecord{Time: base.Add(time.Duration(i) * time.Minute), RequestID: fmt.Sprintf("req-%02d", i),
			AccountID: []string{"alice", "bob", "carol"}[i%3], Method: []string{"workflow.execute", "execution.get"}[i%2],
			Operation: "ApiCall", Decision: []string{store.DecisionAllow, store.DecisionAllow, store.DecisionDeny, store.DecisionLimited}[i%4],
			LatencyMs: int64(i), Status: "200", Details: json.RawMessage(`{"i":` + fmt.Sprint(i) + `}`)}
		if r.Decision != store.DecisionAllow {
			r.ErrorCode = "permission_denied"
		}
		recs = append(recs, r)
	}
	must(t, s.AppendAudit(ctx, recs[:10]))
	must(t, s.AppendAudit(ctx, recs[10:]))
	must(t, s.AppendAudit(ctx, nil))

	query := func(q store.AuditQuery) []store.AuditRecord {
		t.Helper()
		var out []store.AuditRecord
		for pages := 0; ; pages++ {
			if pages > 40 {
				t.Fatal("paging does not end")
			}
			page, next, err := s.QueryAudit(ctx, q)
			must(t, err)
			out = append(out, page...)
			if next == "" {
				return out
			}
			q.Cursor = next
		}
	}
	all := query(store.AuditQuery{Page: store.Page{Limit: 7}})
	if len(all) != 30 || all[0].RequestID != "req-29" || all[29].RequestID != "req-00" {
		t.Fatalf("all, newest first: %d records, first %+v", len(all), all[0])
	}
	r := all[29]
	if !r.Time.Equal(base) || r.AccountID != "alice" || r.Method != "workflow.execute" || r.Operation != "ApiCall" ||
		r.Decision != store.DecisionAllow || r.LatencyMs != 0 || r.Status != "200" || !rawEq(r.Details, json.RawMessage(`{"i":0}`)) || r.ID == 0 {
		t.Fatalf("record read back: %+v", r)
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID >= all[i-1].ID {
			t.Fatalf("ids not falling: %d then %d", all[i-1].ID, all[i].ID)
		}
		if want := fmt.Sprintf("req-%02d", 29-i); all[i].RequestID != want {
			t.Fatalf("record %d newest first is %s, want %s: a batch went in out of order", i, all[i].RequestID, want)
		}
	}
	count := func(q store.AuditQuery, want int, check func(store.AuditRecord) bool) {
		t.Helper()
		got := query(q)
		if len(got) != want {
			t.Fatalf("query %+v: %d records, want %d", q, len(got), want)
		}
		for _, r := range got {
			if !check(r) {
				t.Fatalf("query %+v gave %+v", q, r)
			}
		}
	}
	count(store.AuditQuery{AccountID: "bob", Page: store.Page{Limit: 3}}, 10, func(r store.AuditRecord) bool { return r.AccountID == "bob" })
	count(store.AuditQuery{Method: "execution.get"}, 15, func(r store.AuditRecord) bool { return r.Method == "execution.get" })
	count(store.AuditQuery{Decision: store.DecisionDeny}, 7, func(r store.AuditRecord) bool { return r.Decision == store.DecisionDeny })
	since, until := base.Add(10*time.Minute), base.Add(20*time.Minute)
	count(store.AuditQuery{Since: since, Until: until}, 10, func(r store.AuditRecord) bool {
		return !r.Time.Before(since) && r.Time.Before(until)
	})
	count(store.AuditQuery{AccountID: "alice", Method: "workflow.execute", Decision: store.DecisionAllow, Since: since},
		2, func(r store.AuditRecord) bool { return r.AccountID == "alice" && r.Decision == store.DecisionAllow })

	for _, bad := range []store.AuditQuery{
		{Decision: "maybe"}, {Since: until, Until: since}, {Page: store.Page{Cursor: "x"}}, {Page: store.Page{Limit: store.MaxPageSize + 1}},
	} {
		_, _, err := s.QueryAudit(ctx, bad)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("audit query %+v", bad))
	}
	badRecs := []store.AuditRecord{
		{Decision: store.DecisionAllow},   // no time
		{Time: base, Decision: "perhaps"}, // bad decision
		{Time: base, Decision: store.DecisionAllow, Method: "a\nb"},
		{Time: base, Decision: store.DecisionAllow, Details: json.RawMessage(`{"x":"` + strings.Repeat("d", store.MaxAuditDetailsBytes) + `"}`)},
		{Time: base, Decision: store.DecisionAllow, LatencyMs: -1},
	}
	for i, r := range badRecs {
		err := s.AppendAudit(ctx, []store.AuditRecord{recs[0], r})
		wantKind(t, err, fault.Invalid, fmt.Sprintf("bad audit record %d", i))
		if !strings.Contains(err.Error(), "audit[1]") {
			t.Errorf("error does not say which record: %v", err)
		}
	}
	if got := query(store.AuditQuery{}); len(got) != 30 {
		t.Fatalf("a refused batch landed in part: %d records", len(got))
	}

	// A batch of 3 takes the 3 oldest of the 5 before the cutoff; the next
	// takes the other 2 and stops short of its limit.
	for _, want := range []int64{3, 2, 0} {
		n, err := s.PruneAudit(ctx, base.Add(5*time.Minute), 3)
		must(t, err)
		if n != want {
			t.Fatalf("pruned %d, want %d", n, want)
		}
	}
	_, err := s.PruneAudit(ctx, base, store.MaxPruneBatch+1)
	wantKind(t, err, fault.Invalid, "a prune batch over the bound")
	if got := query(store.AuditQuery{}); len(got) != 25 || got[24].RequestID != "req-05" {
		t.Fatalf("after pruning: %d", len(got))
	}
}

func testRateCounters(t *testing.T, s store.Store) {
	hour := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	now := hour.Add(30 * time.Minute)
	cs := []store.RateCounter{
		{AccountID: "alice", Window: "hour", Start: hour, End: hour.Add(time.Hour), Count: 10},
		{AccountID: "alice", Window: "day", Start: day, End: day.Add(24 * time.Hour), Count: 300},
		{AccountID: "bob", Window: "api_hour", Start: hour, End: hour.Add(time.Hour), Count: 3},
		{AccountID: "bob", Window: "hour", Start: hour.Add(-time.Hour), End: hour, Count: 99}, // over at now
	}
	must(t, s.SaveRateCounters(ctx, now, cs))
	got, err := s.LoadRateCounters(ctx, now)
	must(t, err)
	if len(got) != 3 {
		t.Fatalf("current counters: %+v", got)
	}
	find := func(list []store.RateCounter, acct, win string) store.RateCounter {
		for _, c := range list {
			if c.AccountID == acct && c.Window == win {
				return c
			}
		}
		t.Fatalf("no %s/%s counter in %+v", acct, win, list)
		return store.RateCounter{}
	}
	c := find(got, "alice", "day")
	if c.Count != 300 || !c.Start.Equal(day) || !c.End.Equal(day.Add(24*time.Hour)) {
		t.Fatalf("day counter: %+v", c)
	}
	// Counters only grow: a late, lower flush does not forget requests.
	must(t, s.SaveRateCounters(ctx, now, []store.RateCounter{
		{AccountID: "alice", Window: "hour", Start: hour, End: hour.Add(time.Hour), Count: 4},
		{AccountID: "bob", Window: "api_hour", Start: hour, End: hour.Add(time.Hour), Count: 8},
	}))
	got, err = s.LoadRateCounters(ctx, now)
	must(t, err)
	if find(got, "alice", "hour").Count != 10 || find(got, "bob", "api_hour").Count != 8 {
		t.Fatalf("after a second flush: %+v", got)
	}
	got, err = s.LoadRateCounters(ctx, hour.Add(2*time.Hour))
	must(t, err)
	if len(got) != 1 || got[0].Window != "day" {
		t.Fatalf("two hours later: %+v", got)
	}
	// A save two hours later drops the ended windows for good.
	must(t, s.SaveRateCounters(ctx, hour.Add(2*time.Hour), []store.RateCounter{
		{AccountID: "carol", Window: "hour", Start: hour.Add(2 * time.Hour), End: hour.Add(3 * time.Hour), Count: 1},
	}))
	got, err = s.LoadRateCounters(ctx, hour)
	must(t, err)
	if len(got) != 2 {
		t.Fatalf("ended windows were not dropped: %+v", got)
	}
	must(t, s.SaveRateCounters(ctx, now, nil))
	for i, bad := range []store.RateCounter{
		{AccountID: "", Window: "hour", Start: hour, End: hour.Add(time.Hour)},
		{AccountID: "a", Window: "", Start: hour, End: hour.Add(time.Hour)},
		{AccountID: "a", Window: "hour", Start: hour, End: hour},
		{AccountID: "a", Window: "hour", Start: hour, End: hour.Add(time.Hour), Count: -1},
	} {
		wantKind(t, s.SaveRateCounters(ctx, now, []store.RateCounter{bad}), fault.Invalid, fmt.Sprintf("bad counter %d", i))
	}
}

func testKV(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	must(t, s.PutKV(ctx, "alice", "reports/2026-01", json.RawMessage(`{"total":3}`)))
	must(t, s.PutKV(ctx, "bob", "reports/2026-01", json.RawMessage(`"bob's"`)))
	v, ok, err := s.GetKV(ctx, "alice", "reports/2026-01")
	must(t, err)
	if !ok || !rawEq(v, json.RawMessage(`{"total":3}`)) {
		t.Fatalf("alice's value: %s %v", v, ok)
	}
	v, ok, _ = s.GetKV(ctx, "bob", "reports/2026-01")
	if !ok || string(v) != `"bob's"` {
		t.Fatalf("bob's value: %s", v)
	}
	must(t, s.PutKV(ctx, "alice", "reports/2026-01", json.RawMessage(`[1,2]`)))
	v, _, _ = s.GetKV(ctx, "alice", "reports/2026-01")
	if string(v) != `[1,2]` {
		t.Fatalf("overwrite: %s", v)
	}
	_, ok, err = s.GetKV(ctx, "alice", "missing")
	if err != nil || ok {
		t.Fatalf("missing key: %v %v", ok, err)
	}
	must(t, s.DeleteKV(ctx, "alice", "reports/2026-01"))
	must(t, s.DeleteKV(ctx, "alice", "reports/2026-01"))
	if _, ok, _ := s.GetKV(ctx, "alice", "reports/2026-01"); ok {
		t.Fatal("deleted key still there")
	}
	if _, ok, _ := s.GetKV(ctx, "bob", "reports/2026-01"); !ok {
		t.Fatal("deleting alice's key removed bob's")
	}
	wantKind(t, s.PutKV(ctx, "nobody", "k", json.RawMessage(`1`)), fault.NotFound, "value of a missing account")
	for _, key := range []string{"", "../x", "/abs", "a//b", ".hidden", strings.Repeat("k", 600)} {
		wantKind(t, s.PutKV(ctx, "alice", key, json.RawMessage(`1`)), fault.Invalid, fmt.Sprintf("key %.20q", key))
		_, _, err := s.GetKV(ctx, "alice", key)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("get key %.20q", key))
	}
	secret := "value-that-should-not-show"
	err = s.PutKV(ctx, "alice", "k", json.RawMessage(`{"v":"`+secret+`"`))
	wantKind(t, err, fault.Invalid, "broken value")
	noSecret(t, err, secret)
	wantKind(t, s.PutKV(ctx, "alice", "k", json.RawMessage(`"`+strings.Repeat("v", store.MaxKVValueBytes)+`"`)), fault.Invalid, "huge value")

	mkAccount(t, s, "full")
	parallel(t, store.MaxKVKeysPerAccount, func(i int) error {
		return s.PutKV(ctx, "full", fmt.Sprintf("k%d", i), json.RawMessage(`0`))
	})
	wantKind(t, s.PutKV(ctx, "full", "one-more", json.RawMessage(`0`)), fault.Invalid, "key over the per-account bound")
	must(t, s.PutKV(ctx, "full", "k7", json.RawMessage(`1`))) // overwriting is fine when full
	must(t, s.DeleteKV(ctx, "full", "k7"))
	must(t, s.DeleteKV(ctx, "full", "k7")) // a second delete frees nothing more
	must(t, s.PutKV(ctx, "full", "one-more", json.RawMessage(`0`)))
	wantKind(t, s.PutKV(ctx, "full", "two-more", json.RawMessage(`0`)), fault.Invalid, "full again")
}
