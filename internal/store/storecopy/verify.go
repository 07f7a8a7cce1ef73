package storecopy

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// maxExamples bounds the keys a report names per kind of difference.
const maxExamples = 3

// row is one row in normal form: its key, and its canonical encoding.
type row struct {
	key []any
	enc []byte
}

// cursor reads rows of one side in key order.
type cursor interface {
	next() (row, bool, error)
}

type sqliteCursor struct {
	s    schema
	rows *sql.Rows
}

func (c *sqliteCursor) next() (row, bool, error) {
	if !c.rows.Next() {
		return row{}, false, sourceErr(c.rows.Err())
	}
	vals := make([]any, len(c.s.cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := c.rows.Scan(ptrs...); err != nil {
		return row{}, false, sourceErr(err)
	}
	return c.s.normalRow(vals, "source")
}

type postgresCursor struct {
	s    schema
	rows pgx.Rows
}

func (c *postgresCursor) next() (row, bool, error) {
	if !c.rows.Next() {
		return row{}, false, postgres.ReadError("table "+c.s.name, c.rows.Err())
	}
	vals, err := c.rows.Values()
	if err != nil {
		return row{}, false, postgres.ReadError("table "+c.s.name, err)
	}
	return c.s.normalRow(vals, "target")
}

// normalRow turns a row's values into its key and encoding.
func (s schema) normalRow(vals []any, side string) (row, bool, error) {
	var r row
	for i, c := range s.cols {
		n, err := c.kind.normal(vals[i])
		if err != nil {
			return row{}, false, fmt.Errorf("storecopy: %s %s.%s: %w", side, s.name, c.name, err)
		}
		r.enc = encode(r.enc, n)
		vals[i] = n
	}
	for _, k := range s.key {
		for i, c := range s.cols {
			if c.name == k {
				r.key = append(r.key, vals[i])
			}
		}
	}
	return r, true, nil
}

// verifyTable reads both sides in key order at once and compares them row
// by row, hashing each side's rows as it goes.
func verifyTable(ctx context.Context, src *sqlite.DB, dst *postgres.DB, s schema, tr *TableReport) error {
	srows, err := src.Read(ctx, s.selectSQLite(true))
	if err != nil {
		return sourceErr(err)
	}
	defer srows.Close()
	drows, err := dst.Pool().Query(ctx, s.selectPostgres())
	if err != nil {
		return postgres.ReadError("table "+s.name, err)
	}
	defer drows.Close()
	return compare(&sqliteCursor{s: s, rows: srows}, &postgresCursor{s: s, rows: drows}, tr)
}

// compare merges two cursors in key order into tr.
func compare(src, dst cursor, tr *TableReport) error {
	sh, dh := sha256.New(), sha256.New()
	example := func(what string, key []any) {
		if len(tr.Examples) < 3*maxExamples {
			tr.Examples = append(tr.Examples, what+" "+keyText(key))
		}
	}
	s, sok, err := src.next()
	if err != nil {
		return err
	}
	d, dok, err := dst.next()
	if err != nil {
		return err
	}
	for sok || dok {
		c := 0
		switch {
		case !dok:
			c = -1
		case !sok:
			c = 1
		default:
			c = compareKeys(s.key, d.key)
		}
		if c <= 0 {
			sh.Write(s.enc)
			tr.Source++
		}
		if c >= 0 {
			dh.Write(d.enc)
			tr.Target++
		}
		switch {
		case c < 0:
			tr.Missing++
			example("missing", s.key)
		case c > 0:
			tr.Extra++
			example("extra", d.key)
		case string(s.enc) != string(d.enc):
			tr.Differ++
			example("differs", s.key)
		}
		if c <= 0 {
			if s, sok, err = src.next(); err != nil {
				return err
			}
		}
		if c >= 0 {
			if d, dok, err = dst.next(); err != nil {
				return err
			}
		}
	}
	tr.SourceSum, tr.TargetSum = sum(sh), sum(dh)
	return nil
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
