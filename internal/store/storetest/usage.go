package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func usage(kind, entry, term, account string) store.DiscoveryUsage {
	return store.DiscoveryUsage{Kind: kind, EntryID: entry, Term: term, Account: account}
}

// usageCounts reads the counts as "kind/entry/term=accounts" lines.
func usageCounts(t *testing.T, s store.Store) []string {
	t.Helper()
	cs, err := s.DiscoveryUsageCounts(ctx, "", "")
	must(t, err)
	out := []string{}
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s/%s/%s=%d", c.Kind, c.EntryID, c.Term, c.Accounts))
	}
	return out
}

func wantCounts(t *testing.T, s store.Store, what string, want ...string) {
	t.Helper()
	got := usageCounts(t, s)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%s: counts\n %v\nwant\n %v", what, got, want)
	}
}

func addUsage(t *testing.T, s store.Store, want int, rows ...store.DiscoveryUsage) {
	t.Helper()
	n, err := s.AddDiscoveryUsage(ctx, rows)
	must(t, err)
	if n != want {
		t.Fatalf("added %d of %d rows, want %d", n, len(rows), want)
	}
}

// wantField fails unless err is Invalid about field, named in the message
// and in the details.
func wantField(t *testing.T, err error, field, what string) {
	t.Helper()
	wantKind(t, err, fault.Invalid, what)
	fe := fault.From(err)
	if !strings.HasPrefix(fe.Message, field+": ") || fe.Details["field"] != field {
		t.Fatalf("%s: %q (details %v) does not name %s", what, fe.Message, fe.Details, field)
	}
}

// Adding and counting: an account counts once per word and entry however
// often it says so, and saying it again moves the row's time forward.
func testDiscoveryUsage(t *testing.T, s store.Store) {
	cs, err := s.DiscoveryUsageCounts(ctx, "", "")
	must(t, err)
	if cs == nil || len(cs) != 0 {
		t.Fatalf("an empty store's counts: %#v, want an empty list", cs)
	}
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")

	start := time.Now().Truncate(time.Microsecond)
	addUsage(t, s, 2, usage("tool", "op.weather", "forecast", "alice"), usage("tool", "op.weather", "forecast", "bob"))
	first, err := s.DiscoveryUsageCounts(ctx, "", "")
	must(t, err)
	if len(first) != 1 || first[0].Accounts != 2 || first[0].Kind != "tool" || first[0].EntryID != "op.weather" || first[0].Term != "forecast" {
		t.Fatalf("two accounts on one word: %+v", first)
	}
	last := first[0].Last
	if last.Location() != time.UTC || last.Before(start) || last.After(time.Now()) {
		t.Fatalf("last use %v, want UTC between %v and now", last, start)
	}

	// The same account again, in one call and in another: still two.
	time.Sleep(2 * time.Millisecond)
	addUsage(t, s, 0, usage("tool", "op.weather", "forecast", "alice"), usage("tool", "op.weather", "forecast", "alice"))
	again, err := s.DiscoveryUsageCounts(ctx, "", "")
	must(t, err)
	if len(again) != 1 || again[0].Accounts != 2 {
		t.Fatalf("an account said it twice: %+v", again)
	}
	if !again[0].Last.After(last) {
		t.Fatalf("saying it again left the time at %v (was %v)", again[0].Last, last)
	}
	// A new row said twice in one call is one new row.
	addUsage(t, s, 1, usage("tool", "op.weather", "rain", "bob"), usage("tool", "op.weather", "rain", "bob"))
	wantCounts(t, s, "after repeats", "tool/op.weather/forecast=2", "tool/op.weather/rain=1")

	// Order: kind, entry id, term, byte-wise (upper case before lower, ASCII
	// before other letters), whatever order they came in.
	addUsage(t, s, 7,
		usage("tool", "op.weather", "über", "alice"),
		usage("tool", "op.weather", "zip", "alice"),
		usage("tool", "Zeta", "forecast", "alice"),
		usage("agent", "alpha", "42", "bob"),
		usage("api", "crm", "custom", "alice"),
		usage("agent", "Beta", "日本", "alice"),
		usage("agent", "Beta", "café", "bob"),
	)
	wantCounts(t, s, "ordered",
		"agent/Beta/café=1", "agent/Beta/日本=1", "agent/alpha/42=1", "api/crm/custom=1",
		"tool/Zeta/forecast=1", "tool/op.weather/forecast=2", "tool/op.weather/rain=1", "tool/op.weather/zip=1", "tool/op.weather/über=1")
	n, err := s.AddDiscoveryUsage(ctx, nil)
	if err != nil || n != 0 {
		t.Fatalf("no rows: %d, %v", n, err)
	}
}

// Every bad row names its index and field, and nothing of the call is
// written; so does a call over the bound or with an account that does not
// exist.
func testDiscoveryUsageBounds(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	good := func(term string) store.DiscoveryUsage { return usage("tool", "op.weather", term, "alice") }
	for i, c := range []struct {
		field string
		row   store.DiscoveryUsage
	}{
		{"kind", usage("", "op.weather", "rain", "alice")},
		{"kind", usage("widget", "op.weather", "rain", "alice")},
		{"kind", usage("Tool", "op.weather", "rain", "alice")},
		{"entryId", usage("tool", "", "rain", "alice")},
		{"entryId", usage("tool", strings.Repeat("e", store.MaxDiscoveryEntryIDBytes+1), "rain", "alice")},
		{"entryId", usage("tool", "op.\xff", "rain", "alice")},
		{"entryId", usage("tool", "op\x00weather", "rain", "alice")},
		{"term", usage("tool", "op.weather", "", "alice")},
		{"term", usage("tool", "op.weather", "Rain", "alice")},
		{"term", usage("tool", "op.weather", "rain fall", "alice")},
		{"term", usage("tool", "op.weather", "rain-fall", "alice")},
		{"term", usage("tool", "op.weather", "r\x00", "alice")},
		{"term", usage("tool", "op.weather", "\xffrain", "alice")},
		{"term", usage("tool", "op.weather", "ÜBER", "alice")},
		{"term", usage("tool", "op.weather", strings.Repeat("r", store.MaxDiscoveryTermBytes+1), "alice")},
		{"account", usage("tool", "op.weather", "rain", "")},
		{"account", usage("tool", "op.weather", "rain", "al ice")},
		{"account", usage("tool", "op.weather", "rain", strings.Repeat("a", store.MaxIDBytes+1))},
	} {
		rows := []store.DiscoveryUsage{good("sun"), good("wind"), good("snow")}
		at := i % (len(rows) + 1)
		rows = append(rows[:at], append([]store.DiscoveryUsage{c.row}, rows[at:]...)...)
		what := fmt.Sprintf("bad %s %q", c.field, truncated(c.row))
		_, err := s.AddDiscoveryUsage(ctx, rows)
		wantField(t, err, fmt.Sprintf("rows[%d].%s", at, c.field), what)
		wantField(t, store.CheckDiscoveryUsage(c.row), c.field, what+" alone")
		wantCounts(t, s, what+" wrote")
	}

	rows := make([]store.DiscoveryUsage, store.MaxDiscoveryUsageBatch+1)
	for i := range rows {
		rows[i] = good(fmt.Sprintf("t%d", i))
	}
	_, err := s.AddDiscoveryUsage(ctx, rows)
	wantField(t, err, "rows", "a batch over the bound")
	wantCounts(t, s, "a batch over the bound wrote")

	_, err = s.AddDiscoveryUsage(ctx, []store.DiscoveryUsage{good("sun"), usage("tool", "op.weather", "sun", "ghost")})
	wantKind(t, err, fault.NotFound, "an account that does not exist")
	if !strings.Contains(err.Error(), "ghost") {
		t.Fatalf("the error does not name the account: %v", err)
	}
	wantCounts(t, s, "a row of an unknown account wrote")

	// The bounds themselves pass, and a full batch goes in.
	addUsage(t, s, 3,
		usage("knowledge", strings.Repeat("é", store.MaxDiscoveryEntryIDBytes/2), "rain", "alice"),
		good(strings.Repeat("r", store.MaxDiscoveryTermBytes)),
		usage("capability", "core/weather.Forecast@1.0.0", "日本", "alice"))
	addUsage(t, s, store.MaxDiscoveryUsageBatch, rows[:store.MaxDiscoveryUsageBatch]...)
	if got := len(usageCounts(t, s)); got != store.MaxDiscoveryUsageBatch+3 {
		t.Fatalf("%d counts after a full batch, want %d", got, store.MaxDiscoveryUsageBatch+3)
	}
}

func truncated(r store.DiscoveryUsage) string {
	s := fmt.Sprint(r.Kind, "/", r.EntryID, "/", r.Term, "/", r.Account)
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Forgetting one entry's usage (kind and id both count), all of it, and
// refusing half an entry.
func testDiscoveryUsageDelete(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	addUsage(t, s, 7,
		usage("tool", "op.a", "rain", "alice"), usage("tool", "op.a", "rain", "bob"), usage("tool", "op.a", "sun", "alice"),
		usage("tool", "op.b", "rain", "alice"),
		usage("agent", "op.a", "rain", "alice"), usage("agent", "op.a", "wind", "bob"),
		usage("api", "op.a", "rain", "bob"))
	// Counts of one entry: its kind and id both count.
	one, err := s.DiscoveryUsageCounts(ctx, "tool", "op.a")
	must(t, err)
	if len(one) != 2 || one[0].Term != "rain" || one[0].Accounts != 2 || one[1].Term != "sun" || one[1].Accounts != 1 ||
		one[0].Kind != "tool" || one[0].EntryID != "op.a" {
		t.Fatalf("counts of tool op.a: %+v", one)
	}
	if none, err := s.DiscoveryUsageCounts(ctx, "capability", "op.a"); err != nil || len(none) != 0 {
		t.Fatalf("counts of an entry without usage: %+v, %v", none, err)
	}
	n, err := s.DeleteDiscoveryUsage(ctx, "tool", "op.a")
	must(t, err)
	if n != 3 {
		t.Fatalf("deleted %d rows of tool op.a, want 3", n)
	}
	wantCounts(t, s, "after deleting tool op.a", "agent/op.a/rain=1", "agent/op.a/wind=1", "api/op.a/rain=1", "tool/op.b/rain=1")
	if n, err := s.DeleteDiscoveryUsage(ctx, "tool", "op.a"); err != nil || n != 0 {
		t.Fatalf("deleting again: %d, %v", n, err)
	}
	for _, c := range []struct{ kind, entry, field string }{
		{"tool", "", "entryId"},
		{"", "op.b", "kind"},
		{"widget", "op.b", "kind"},
		{"tool", "op\x00b", "entryId"},
	} {
		_, err := s.DeleteDiscoveryUsage(ctx, c.kind, c.entry)
		wantField(t, err, c.field, fmt.Sprintf("deleting %q %q", c.kind, c.entry))
		_, err = s.DiscoveryUsageCounts(ctx, c.kind, c.entry)
		wantField(t, err, c.field, fmt.Sprintf("counting %q %q", c.kind, c.entry))
	}
	wantCounts(t, s, "after refused deletes", "agent/op.a/rain=1", "agent/op.a/wind=1", "api/op.a/rain=1", "tool/op.b/rain=1")
	n, err = s.DeleteDiscoveryUsage(ctx, "", "")
	must(t, err)
	if n != 4 {
		t.Fatalf("deleted %d rows in all, want 4", n)
	}
	wantCounts(t, s, "after deleting all")
	if n, err := s.DeleteDiscoveryUsage(ctx, "", ""); err != nil || n != 0 {
		t.Fatalf("deleting all of nothing: %d, %v", n, err)
	}
}

// Pruning goes by each row's time, which a row seen again has moved on.
func testDiscoveryUsagePrune(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	addUsage(t, s, 3, usage("tool", "op.a", "rain", "alice"), usage("tool", "op.a", "rain", "bob"), usage("tool", "op.a", "sun", "alice"))
	time.Sleep(2 * time.Millisecond)
	cut := time.Now()
	time.Sleep(2 * time.Millisecond)
	addUsage(t, s, 1, usage("tool", "op.a", "wind", "bob"))
	addUsage(t, s, 0, usage("tool", "op.a", "rain", "bob"))
	n, err := s.PruneDiscoveryUsage(ctx, cut)
	must(t, err)
	if n != 2 {
		t.Fatalf("pruned %d rows before the cut, want 2", n)
	}
	wantCounts(t, s, "after the prune", "tool/op.a/rain=1", "tool/op.a/wind=1")
	cs, err := s.DiscoveryUsageCounts(ctx, "", "")
	must(t, err)
	for _, c := range cs {
		if c.Last.Before(cut) {
			t.Fatalf("a row older than the cut is left: %+v", c)
		}
	}
	if n, err := s.PruneDiscoveryUsage(ctx, cut); err != nil || n != 0 {
		t.Fatalf("pruning again: %d, %v", n, err)
	}
	if n, err := s.PruneDiscoveryUsage(ctx, time.Now().Add(time.Hour)); err != nil || n != 2 {
		t.Fatalf("pruning everything: %d, %v", n, err)
	}
	wantCounts(t, s, "after pruning everything")
}

// An account keeps at most MaxDiscoveryUsagePerAccount rows: the write
// that would pass it is Conflict and writes nothing, rows it only sees
// again still go through, and another account is not held back.
func testDiscoveryUsagePerAccount(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	max := store.MaxDiscoveryUsagePerAccount
	for start := 0; start < max; start += store.MaxDiscoveryUsageBatch {
		rows := make([]store.DiscoveryUsage, 0, store.MaxDiscoveryUsageBatch)
		for i := start; i < start+store.MaxDiscoveryUsageBatch && i < max; i++ {
			rows = append(rows, usage("tool", fmt.Sprintf("op.%d", i/50), fmt.Sprintf("w%d", i), "alice"))
		}
		addUsage(t, s, len(rows), rows...)
	}
	over := []store.DiscoveryUsage{usage("tool", "op.x", "rain", "alice"), usage("tool", "op.x", "sun", "alice")}
	_, err := s.AddDiscoveryUsage(ctx, over)
	wantKind(t, err, fault.Conflict, "a row past the bound")
	if fe := fault.From(err); !strings.Contains(fe.Message, `"alice"`) || fe.Details["account"] != "alice" {
		t.Fatalf("the error does not name the account: %q %v", fe.Message, fe.Details)
	}
	if cs, err := s.DiscoveryUsageCounts(ctx, "tool", "op.x"); err != nil || len(cs) != 0 {
		t.Fatalf("a refused write left %v, %v", cs, err)
	}
	// Seen again: no new row, no refusal.
	addUsage(t, s, 0, usage("tool", "op.0", "w0", "alice"))
	addUsage(t, s, 1, usage("tool", "op.x", "rain", "bob"))
	// Forgetting makes room.
	if _, err := s.DeleteDiscoveryUsage(ctx, "tool", "op.0"); err != nil {
		t.Fatal(err)
	}
	addUsage(t, s, 2, over...)
}
