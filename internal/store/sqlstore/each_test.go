package sqlstore

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// recording keeps each Exec's row count (tuples in the statement) and its
// arguments.
type recording struct {
	Querier
	tuples []int
	args   []any
}

func (q *recording) Exec(_ context.Context, query string, args ...any) (int64, error) {
	q.tuples = append(q.tuples, strings.Count(query, "("))
	q.args = append(q.args, args...)
	return 1, nil
}

// TestAppendRowsInChunks: without a Pipeliner or Copier, 86 rows go in as
// INSERTs of 64, 16, 4, 1 and 1 rows (the column list is one more
// parenthesis), with every argument in the order given.
func TestAppendRowsInChunks(t *testing.T) {
	var rows [][]any
	var want []any
	for i := range 86 {
		rows = append(rows, []any{i, -i})
		want = append(want, i, -i)
	}
	q := &recording{}
	if err := appendRows(context.Background(), q, "t", []string{"a", "b"}, rows); err != nil {
		t.Fatal(err)
	}
	if wantTuples := []int{65, 17, 5, 2, 2}; !slices.Equal(q.tuples, wantTuples) {
		t.Errorf("statements of %v parentheses, want %v", q.tuples, wantTuples)
	}
	if !slices.Equal(q.args, want) {
		t.Errorf("arguments out of order: %v", q.args)
	}
}
