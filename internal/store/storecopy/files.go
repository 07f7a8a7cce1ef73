package storecopy

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/storage/storekey"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// diskFile is one value of the file storage on disk: DIR/<account>/<key>.
type diskFile struct {
	account, key string
	data         []byte
	mod          time.Time
}

// readFiles walks the file storage's folder. A file that cannot become a
// stored value (not JSON, too large, a key the storage rule refuses, an
// account that does not exist, a link) is a problem, named in the report;
// temporary files of an interrupted write (".tmp-…") are left.
func readFiles(dir string, accounts map[string]bool) ([]diskFile, []string, error) {
	if dir == "" {
		return nil, nil, nil
	}
	top, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, readErrf(err, "the file storage %s cannot be read", dir)
	}
	var (
		out      []diskFile
		problems []string
	)
	for _, acct := range top {
		if !acct.IsDir() {
			problems = append(problems, fmt.Sprintf("%s: not an account's folder", acct.Name()))
			continue
		}
		if !accounts[acct.Name()] {
			problems = append(problems, fmt.Sprintf("%s/: no account %q in the source", acct.Name(), acct.Name()))
			continue
		}
		root := filepath.Join(dir, acct.Name())
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			key := filepath.ToSlash(rel)
			switch {
			case d.IsDir():
				return nil
			case strings.HasPrefix(d.Name(), "."):
				return nil // a temporary file of a write that never finished
			case !d.Type().IsRegular():
				problems = append(problems, fmt.Sprintf("%s/%s: not a regular file", acct.Name(), key))
				return nil
			}
			if err := storekey.Check(key); err != nil {
				problems = append(problems, fmt.Sprintf("%s/%s: %v", acct.Name(), key, err))
				return nil
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			data, err := io.ReadAll(io.LimitReader(f, store.MaxKVValueBytes+1))
			if err != nil {
				return err
			}
			info, err := f.Stat()
			if err != nil {
				return err
			}
			switch {
			case len(data) > store.MaxKVValueBytes:
				problems = append(problems, fmt.Sprintf("%s/%s: over %d bytes", acct.Name(), key, store.MaxKVValueBytes))
			case !json.Valid(data) || !utf8.Valid(data):
				problems = append(problems, fmt.Sprintf("%s/%s: not a JSON value in UTF-8", acct.Name(), key))
			default:
				out = append(out, diskFile{account: acct.Name(), key: key, data: data, mod: info.ModTime().UTC().Truncate(time.Microsecond)})
			}
			return nil
		})
		if err != nil {
			return nil, nil, readErrf(err, "the file storage %s cannot be read", root)
		}
	}
	return out, problems, nil
}

func readErrf(err error, format string, args ...any) error {
	return sourceErr(fmt.Errorf(format+": %w", append(args, err)...))
}

// accountIDs are the target's accounts (the source's, once copied).
func accountIDs(ctx context.Context, dst *postgres.DB) (map[string]bool, error) {
	out := map[string]bool{}
	err := dst.Read(ctx, func(q postgres.Querier) error {
		clear(out)
		rows, err := q.Query(ctx, `SELECT id FROM accounts`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out[id] = true
		}
		return rows.Err()
	})
	return out, postgres.ReadError("the target's accounts", err)
}

// copyFiles puts the file storage's values into the target's stored values
// (area file), keeping those already there.
func copyFiles(ctx context.Context, dst *postgres.DB, o Options) (TableReport, error) {
	tr := TableReport{Table: "files (" + a2e.StorageFile + " storage)"}
	accounts, err := accountIDs(ctx, dst)
	if err != nil {
		return tr, err
	}
	files, problems, err := readFiles(o.FilesDir, accounts)
	if err != nil {
		return tr, err
	}
	tr.Problems = problems
	for batch := range slices.Chunk(files, 200) {
		err := dst.Write(ctx, func(tx postgres.Tx) error {
			var n int64
			for _, f := range batch {
				tag, err := tx.Exec(ctx, `INSERT INTO scoped_values (area, account_id, scope, key, value, expires_at, updated_at)
					VALUES ($1, $2, '', $3, $4, NULL, $5) ON CONFLICT DO NOTHING`, a2e.StorageFile, f.account, f.key, string(f.data), f.mod)
				if err != nil {
					return err
				}
				n += tag.RowsAffected()
			}
			tr.Copied += n
			return nil
		})
		if err != nil {
			return tr, postgres.WriteError("the file values", err)
		}
	}
	return tr, nil
}

// verifyFiles compares the files on disk (and any file values the source's
// table held) with the target's file values, by account, key and content.
func verifyFiles(ctx context.Context, src *sqlite.DB, dst *postgres.DB, o Options, tr *TableReport) error {
	accounts, err := accountIDs(ctx, dst)
	if err != nil {
		return err
	}
	files, _, err := readFiles(o.FilesDir, accounts)
	if err != nil {
		return err
	}
	want := make([]row, 0, len(files))
	for _, f := range files {
		want = append(want, fileRow(f.account, f.key, f.data))
	}
	held, err := src.Read(ctx, `SELECT account_id, key, value FROM scoped_values WHERE area = ? AND scope = ''`, a2e.StorageFile)
	if err != nil {
		return sourceErr(err)
	}
	defer held.Close()
	for held.Next() {
		var account, key, value string
		if err := held.Scan(&account, &key, &value); err != nil {
			return sourceErr(err)
		}
		if !slices.ContainsFunc(files, func(f diskFile) bool { return f.account == account && f.key == key }) {
			want = append(want, fileRow(account, key, []byte(value)))
		}
	}
	if err := held.Err(); err != nil {
		return sourceErr(err)
	}
	slices.SortFunc(want, func(a, b row) int { return compareKeys(a.key, b.key) })
	rows, err := dst.Pool().Query(ctx, `SELECT account_id, key, value FROM scoped_values
		WHERE area = $1 AND scope = '' ORDER BY account_id COLLATE "C", key COLLATE "C"`, a2e.StorageFile)
	if err != nil {
		return postgres.ReadError("the file values", err)
	}
	defer rows.Close()
	return compare(&sliceCursor{rows: want}, &fileCursor{rows: rows}, tr)
}

func fileRow(account, key string, data []byte) row {
	h := sha256.Sum256(data)
	k := []any{account, key}
	return row{key: k, enc: encode(encode(encode(nil, account), key), h[:])}
}

type sliceCursor struct{ rows []row }

func (c *sliceCursor) next() (row, bool, error) {
	if len(c.rows) == 0 {
		return row{}, false, nil
	}
	r := c.rows[0]
	c.rows = c.rows[1:]
	return r, true, nil
}

type fileCursor struct{ rows pgx.Rows }

func (c *fileCursor) next() (row, bool, error) {
	if !c.rows.Next() {
		return row{}, false, postgres.ReadError("the file values", c.rows.Err())
	}
	var account, key, value string
	if err := c.rows.Scan(&account, &key, &value); err != nil {
		return row{}, false, postgres.ReadError("the file values", err)
	}
	return fileRow(account, key, []byte(value)), true, nil
}
