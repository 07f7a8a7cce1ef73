package sqlstore

import (
	"context"
	"strings"
	"testing"
)

// noInserted is a backend without an Inserted expression; the rest of
// Backend is not used by upsert.
type noInserted struct{ Backend }

func (noInserted) Inserted() string { return "" }

// scripted answers each Exec with the next count and records the verbs.
type scripted struct {
	Querier
	counts []int64
	verbs  []string
}

func (q *scripted) Exec(_ context.Context, query string, _ ...any) (int64, error) {
	q.verbs = append(q.verbs, strings.Fields(query)[0])
	n := q.counts[0]
	q.counts = q.counts[1:]
	return n, nil
}

// TestUpsertWithoutInserted pins the update-first form: an existing row is
// one UPDATE, a new one UPDATE then INSERT, and a row a concurrent writer
// inserted between the two (the INSERT does nothing) is updated after all.
func TestUpsertWithoutInserted(t *testing.T) {
	s := New(noInserted{})
	for _, c := range []struct {
		name     string
		counts   []int64
		inserted bool
		verbs    string
	}{
		{"existing", []int64{1}, false, "UPDATE"},
		{"new", []int64{0, 1}, true, "UPDATE INSERT"},
		{"inserted meanwhile", []int64{0, 0, 1}, false, "UPDATE INSERT UPDATE"},
	} {
		q := &scripted{counts: c.counts}
		inserted, err := s.upsert(context.Background(), q, "t (k, v)", "(k)", "v = excluded.v", []any{1, 2}, "t SET v = ? WHERE k = ?", []any{2, 1})
		if err != nil || inserted != c.inserted || strings.Join(q.verbs, " ") != c.verbs {
			t.Errorf("%s: inserted %v, err %v, statements %q; want %v, %q", c.name, inserted, err, q.verbs, c.inserted, c.verbs)
		}
	}
}
