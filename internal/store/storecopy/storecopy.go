// Package storecopy copies a single-machine installation (the SQLite store of
// a data directory, and the files of its file storage) into a PostgreSQL
// store, then verifies the copy: the row count and a SHA-256 over every row
// of each table, in key order, on both sides.
//
// The copy works table by table, row by row, through the two stores' own
// schemas (which hold the same tables and columns: SQLite's INTEGER
// microseconds are timestamptz there, its 0/1 booleans, booleans), so every
// field survives as it was, ids, sequence numbers and times included. Rows go
// in with ON CONFLICT DO NOTHING: running it again copies only what is
// missing and never changes a row that is there, so it is safe to repeat
// after an interruption. A row the target holds differently, or holds
// without the source having it, is reported by the verification, never
// overwritten.
//
// What is not copied, and why, is in Skipped. Derived values are rebuilt in
// the target: each execution's last event sequence (a PostgreSQL-only
// column), the per-scope key counts of stored values, and the identity
// sequences, so the next row gets the next number.
package storecopy

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

// table is one copied table: its name and its key, which orders the rows and
// identifies them in reports.
type table struct {
	name string
	key  []string
	// derived tables are rebuilt in the target rather than copied.
	derived bool
	// verifyWhere narrows the verification of both sides (the rest is
	// verified elsewhere).
	verifyWhere string
}

// Tables in an order that respects foreign keys.
var tables = []table{
	{name: "accounts", key: []string{"id"}},
	{name: "api_keys", key: []string{"id"}},
	{name: "credentials", key: []string{"id"}},
	{name: "executions", key: []string{"seq"}},
	{name: "checkpoints", key: []string{"execution_id"}},
	{name: "events", key: []string{"execution_id", "seq"}},
	{name: "audit", key: []string{"id"}},
	{name: "kv", key: []string{"account_id", "key"}},
	{name: "kv_usage", key: []string{"account_id"}},
	{name: "mcp_servers", key: []string{"account_id", "name"}},
	{name: "a2a_push_configs", key: []string{"seq"}},
	{name: "capabilities", key: []string{"namespace", "id"}},
	{name: "capability_versions", key: []string{"seq"}},
	{name: "knowledge_bases", key: []string{"name"}},
	{name: "agents", key: []string{"name"}},
	{name: "discovery_usage", key: []string{"kind", "entry_id", "term", "account_id"}},
	// File values are verified with the files of the data directory.
	{name: "scoped_values", key: []string{"area", "account_id", "scope", "key"}, verifyWhere: "area <> 'file'"},
	{name: "scoped_value_usage", key: []string{"area", "account_id", "scope"}, derived: true},
}

// Skipped are the source's tables left out, with the reason.
var Skipped = map[string]string{
	"rate_counters":     "counts of the current minute, hour and day only; the shared limits start afresh on the new store",
	"queue_items":       "the local queue's rows; every gateway queues the unfinished executions again when it starts",
	"queue_groups":      "the local queue's fairness state, made again with the items it counts",
	"rate_slots":        "slots of executions running in a process; none runs while the data directory is copied",
	"settings":          "the target's own (the source's keys are claimed there instead, store/keyguard), but for PortableSettings, which are copied",
	"schema_migrations": "each store records its own schema version",
}

// PortableSettings are the settings an operator chose that go with the data:
// an admin's retention policy (internal/retention's SettingName). Each is
// copied over the target's, when the source has it.
var PortableSettings = []string{"retention.policy"}

// copySettings copies the source's PortableSettings and names those copied.
func copySettings(ctx context.Context, src *sqlite.DB, dst *postgres.DB) ([]string, error) {
	var copied []string
	for _, name := range PortableSettings {
		v, ok, err := src.GetSetting(ctx, name)
		if err != nil {
			return copied, err
		}
		if !ok {
			continue
		}
		stored, err := dst.ClaimSetting(ctx, name, v)
		if err != nil {
			return copied, err
		}
		if !bytes.Equal(stored, v) {
			if err := dst.SwapSetting(ctx, name, stored, v); err != nil {
				return copied, fault.New(fault.Conflict, "setting %s changed in the target while it was copied", name).WithCause(err)
			}
		}
		copied = append(copied, name)
	}
	return copied, nil
}

// derivedColumns are target columns the copy computes instead of copying.
var derivedColumns = map[string][]string{"executions": {"event_seq"}}

// column is one column of a table, with the kind of its values.
type column struct {
	name     string
	kind     kind
	identity bool // GENERATED ALWAYS AS IDENTITY in the target
}

// schema is what both stores say of a table.
type schema struct {
	table
	cols []column // the copied columns, in the target's order
}

// Options of Copy.
type Options struct {
	Logger *slog.Logger
	// BatchRows and BatchBytes bound one insert transaction (defaults 500
	// rows and 8 MiB).
	BatchRows  int
	BatchBytes int
	// FilesDir is the file storage's folder (DATA_DIR/files); "" or missing:
	// no files.
	FilesDir string
	// Progress (nil: none) is told after each table is copied: how many of
	// how many tables are done, and the table's name.
	Progress func(done, total int, table string)
}

// Report says what was copied and what the verification found.
type Report struct {
	Tables []TableReport
	Files  TableReport // the file storage: files on disk against file values in the target
	// Settings names the PortableSettings copied.
	Settings []string
}

// OK reports whether every table and the files verified.
func (r Report) OK() bool {
	for _, t := range append(slices.Clone(r.Tables), r.Files) {
		if !t.OK() {
			return false
		}
	}
	return true
}

// TableReport is one table's copy and verification.
type TableReport struct {
	Table          string
	Copied         int64 // rows inserted by this run
	Source, Target int64 // rows on each side at the verification
	// SourceSum and TargetSum are SHA-256 (hex) over the rows in key order.
	SourceSum, TargetSum string
	// Missing: source rows not in the target; Extra: target rows not in the
	// source; Differ: rows with the same key and other values. Examples
	// names up to three keys of each.
	Missing, Extra, Differ int64
	Examples               []string
	// Problems are source rows that could not be copied (files only).
	Problems []string
}

// OK reports whether the table verified.
func (t TableReport) OK() bool {
	return t.Missing == 0 && t.Extra == 0 && t.Differ == 0 && len(t.Problems) == 0 && t.SourceSum == t.TargetSum
}

// Copy copies src into dst and verifies the result.
func Copy(ctx context.Context, src *sqlite.DB, dst *postgres.DB, o Options) (Report, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BatchRows <= 0 {
		o.BatchRows = 500
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = 8 << 20
	}
	schemas, err := readSchemas(ctx, src, dst)
	if err != nil {
		return Report{}, err
	}
	var rep Report
	for i, s := range schemas {
		tr := TableReport{Table: s.name}
		if !s.derived {
			n, err := copyTable(ctx, src, dst, s, o)
			if err != nil {
				return rep, err
			}
			tr.Copied = n
			o.Logger.Info("table copied", "table", s.name, "rows", n)
		}
		rep.Tables = append(rep.Tables, tr)
		if o.Progress != nil {
			o.Progress(i+1, len(schemas), s.name)
		}
	}
	if rep.Settings, err = copySettings(ctx, src, dst); err != nil {
		return rep, err
	}
	files, err := copyFiles(ctx, dst, o)
	if err != nil {
		return rep, err
	}
	if err := rebuild(ctx, dst); err != nil {
		return rep, err
	}
	for i, s := range schemas {
		if s.derived {
			rep.Tables[i].SourceSum, rep.Tables[i].TargetSum = "derived", "derived"
			continue
		}
		if err := verifyTable(ctx, src, dst, s, &rep.Tables[i]); err != nil {
			return rep, err
		}
	}
	if err := verifyFiles(ctx, src, dst, o, &files); err != nil {
		return rep, err
	}
	rep.Files = files
	return rep, nil
}

// readSchemas reads the columns of every copied table on both sides and
// checks that they agree, and that every source table is copied or skipped.
func readSchemas(ctx context.Context, src *sqlite.DB, dst *postgres.DB) ([]schema, error) {
	srcTables, err := sqliteTables(ctx, src)
	if err != nil {
		return nil, err
	}
	for _, name := range srcTables {
		if _, ok := Skipped[name]; ok {
			continue
		}
		if !slices.ContainsFunc(tables, func(t table) bool { return t.name == name }) {
			return nil, fault.New(fault.Internal, "the source has a table %q this copy does not know", name).
				WithSuggestions("Use the sluice binary of the same version as the server that wrote the data directory")
		}
	}
	var out []schema
	for _, t := range tables {
		srcCols, err := sqliteColumns(ctx, src, t.name)
		if err != nil {
			return nil, err
		}
		dstCols, err := postgresColumns(ctx, dst, t.name)
		if err != nil {
			return nil, err
		}
		s := schema{table: t}
		for _, c := range dstCols {
			if slices.Contains(derivedColumns[t.name], c.name) {
				continue
			}
			if !slices.Contains(srcCols, c.name) {
				return nil, schemaMismatch(t.name, c.name, "the target")
			}
			s.cols = append(s.cols, c)
		}
		for _, name := range srcCols {
			if !slices.ContainsFunc(s.cols, func(c column) bool { return c.name == name }) {
				return nil, schemaMismatch(t.name, name, "the source")
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func schemaMismatch(table, col, side string) error {
	return fault.New(fault.Internal, "column %s.%s is only in %s: the two schemas differ", table, col, side).
		WithSuggestions("Use one sluice binary for both stores: it brings both schemas to its version")
}

func sqliteTables(ctx context.Context, src *sqlite.DB) ([]string, error) {
	rows, err := src.Read(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, sourceErr(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, sourceErr(err)
		}
		out = append(out, n)
	}
	return out, sourceErr(rows.Err())
}

func sqliteColumns(ctx context.Context, src *sqlite.DB, table string) ([]string, error) {
	rows, err := src.Read(ctx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return nil, sourceErr(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, sourceErr(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, sourceErr(err)
	}
	if len(out) == 0 {
		return nil, fault.New(fault.Internal, "the source has no table %q", table)
	}
	return out, nil
}

func postgresColumns(ctx context.Context, dst *postgres.DB, table string) ([]column, error) {
	var out []column
	err := dst.Read(ctx, func(q postgres.Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT column_name, data_type, is_identity FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, typ, ident string
			if err := rows.Scan(&name, &typ, &ident); err != nil {
				return err
			}
			k, ok := kindOf(typ)
			if !ok {
				return fault.New(fault.Internal, "column %s.%s has type %s, which this copy does not know", table, name, typ)
			}
			out = append(out, column{name: name, kind: k, identity: ident == "YES"})
		}
		return rows.Err()
	})
	if err != nil {
		return nil, postgres.ReadError("the target's schema", err)
	}
	if len(out) == 0 {
		return nil, fault.New(fault.Internal, "the target has no table %q", table)
	}
	return out, nil
}

// copyTable inserts the source's rows in batches, each in a transaction of
// its own; rows the target holds already (by any unique key) are left.
func copyTable(ctx context.Context, src *sqlite.DB, dst *postgres.DB, s schema, o Options) (int64, error) {
	rows, err := src.Read(ctx, s.selectSQLite(false))
	if err != nil {
		return 0, sourceErr(err)
	}
	defer rows.Close()
	var (
		copied int64
		batch  [][]any
		size   int
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		sql, args := s.insertSQL(batch)
		var n int64
		err := dst.Write(ctx, func(tx postgres.Tx) error {
			tag, err := tx.Exec(ctx, sql, args...)
			n = tag.RowsAffected()
			return err
		})
		if err != nil {
			return postgres.WriteError("table "+s.name, err)
		}
		copied += n
		batch, size = batch[:0], 0
		return nil
	}
	for rows.Next() {
		vals := make([]any, len(s.cols))
		ptrs := make([]any, len(s.cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return copied, sourceErr(err)
		}
		row := make([]any, len(s.cols))
		for i, c := range s.cols {
			v, n, err := c.kind.toPostgres(vals[i])
			if err != nil {
				return copied, fault.New(fault.Internal, "%s.%s: %v", s.name, c.name, err)
			}
			row[i], size = v, size+n
		}
		batch = append(batch, row)
		if len(batch) >= o.BatchRows || size >= o.BatchBytes || (len(batch)+1)*len(s.cols) > 60000 {
			if err := flush(); err != nil {
				return copied, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return copied, sourceErr(err)
	}
	return copied, flush()
}

func (s schema) colList() string {
	names := make([]string, len(s.cols))
	for i, c := range s.cols {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

func (s schema) selectSQLite(verify bool) string {
	return fmt.Sprintf(`SELECT %s FROM %s%s ORDER BY %s`, s.colList(), s.name, s.where(verify), strings.Join(s.key, ", "))
}

func (s schema) where(verify bool) string {
	if verify && s.verifyWhere != "" {
		return " WHERE " + s.verifyWhere
	}
	return ""
}

// selectPostgres orders text keys byte-wise, as SQLite does.
func (s schema) selectPostgres() string {
	order := make([]string, len(s.key))
	for i, k := range s.key {
		order[i] = k
		for _, c := range s.cols {
			if c.name == k && c.kind == kindText {
				order[i] = k + ` COLLATE "C"`
			}
		}
	}
	return fmt.Sprintf(`SELECT %s FROM %s%s ORDER BY %s`, s.colList(), s.name, s.where(true), strings.Join(order, ", "))
}

func (s schema) insertSQL(batch [][]any) (string, []any) {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (%s)", s.name, s.colList())
	if slices.ContainsFunc(s.cols, func(c column) bool { return c.identity }) {
		b.WriteString(" OVERRIDING SYSTEM VALUE")
	}
	b.WriteString(" VALUES ")
	args := make([]any, 0, len(batch)*len(s.cols))
	for i, row := range batch {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j, v := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			args = append(args, v)
			fmt.Fprintf(&b, "$%d", len(args))
		}
		b.WriteByte(')')
	}
	b.WriteString(" ON CONFLICT DO NOTHING")
	return b.String(), args
}

// rebuild computes what the target derives: executions' last event
// sequence, the key counts of stored values, and the identity sequences.
func rebuild(ctx context.Context, dst *postgres.DB) error {
	err := dst.Write(ctx, func(tx postgres.Tx) error {
		stmts := []string{
			`UPDATE executions e SET event_seq = m.seq FROM (SELECT execution_id, MAX(seq) AS seq FROM events GROUP BY 1) m
				WHERE e.id = m.execution_id AND e.event_seq < m.seq`,
			`INSERT INTO scoped_value_usage (area, account_id, scope, keys)
				SELECT area, account_id, scope, COUNT(*) FROM scoped_values GROUP BY 1, 2, 3
				ON CONFLICT (area, account_id, scope) DO UPDATE SET keys = excluded.keys`,
		}
		for _, t := range []string{"executions", "audit", "capability_versions"} {
			col := "seq"
			if t == "audit" {
				col = "id"
			}
			stmts = append(stmts, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%[1]s', '%[2]s'),
				GREATEST((SELECT MAX(%[2]s) FROM %[1]s), 1), (SELECT MAX(%[2]s) FROM %[1]s) IS NOT NULL)`, t, col))
		}
		for _, q := range stmts {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	return postgres.WriteError("the target's derived values", err)
}

func sourceErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return fault.New(fault.Unavailable, "the source database cannot be read").WithCause(err)
}
