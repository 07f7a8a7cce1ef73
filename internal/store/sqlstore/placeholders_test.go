package sqlstore

import "testing"

func TestNumbered(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE id = ? AND b > ? LIMIT ?`, `SELECT a FROM t WHERE id = $1 AND b > $2 LIMIT $3`},
		{`SELECT '?' FROM t WHERE "a?" = ?`, `SELECT '?' FROM t WHERE "a?" = $1`},
		{`VALUES (?, ?, 'it''s ?', ?)`, `VALUES ($1, $2, 'it''s ?', $3)`},
	}
	for _, c := range cases {
		for range 2 { // the second time from the cache
			if got := Numbered(c.in); got != c.want {
				t.Errorf("Numbered(%q) = %q, want %q", c.in, got, c.want)
			}
		}
	}
}
