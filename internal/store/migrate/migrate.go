// Package migrate reads a store's versioned schema migrations: embedded .sql
// files named NNNN_what.sql, applied in order and recorded in a
// schema_migrations table by the store that runs them. Adding a table is adding
// the next file; nothing else changes. A database that has applied a version
// this binary does not know was written by a newer sluice and is refused, so an
// old binary never runs against a schema it does not understand.
package migrate

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"regexp"
	"slices"
	"strconv"

	"github.com/sluicehq/sluice/internal/fault"
)

// Migration is one schema step.
type Migration struct {
	Version int
	Name    string // the file name
	SQL     string
}

var fileName = regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.sql$`)

// Load reads the migrations in dir of fsys. Versions must run 1, 2, 3... with
// no gap or repeat, and every .sql file must follow the naming rule: a mistake
// here is a build mistake, reported as an Internal error naming the file.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fault.New(fault.Internal, "schema migrations are missing").WithCause(err)
	}
	var out []Migration
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fault.New(fault.Internal, "schema migration %s is misnamed", e.Name()).
				WithCause(fmt.Errorf("migrate: want NNNN_name.sql, got %s", e.Name()))
		}
		v, _ := strconv.Atoi(m[1])
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fault.New(fault.Internal, "schema migration %s is unreadable", e.Name()).WithCause(err)
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fault.New(fault.Internal, "schema migration %s is out of sequence", m.Name).
				WithCause(fmt.Errorf("migrate: version %d where %d was expected", m.Version, i+1))
		}
	}
	return out, nil
}

// Pending returns the migrations after applied (the highest version the
// database has). A database ahead of the binary is an Unavailable error that
// says so and what to do.
func Pending(all []Migration, applied int) ([]Migration, error) {
	known := len(all)
	if applied > known {
		return nil, fault.New(fault.Unavailable,
			"the database has schema version %d but this sluice knows only up to version %d: it was written by a newer sluice", applied, known).
			WithDetail("databaseVersion", applied).WithDetail("binaryVersion", known).
			WithSuggestions("Run the sluice version that wrote this data directory, or a newer one")
	}
	if applied < 0 {
		applied = 0
	}
	return all[applied:], nil
}

// Latest is the highest version of the migrations in dir of fsys (0 when
// they cannot be read).
func Latest(fsys fs.FS, dir string) int {
	all, err := Load(fsys, dir)
	if err != nil {
		return 0
	}
	return len(all)
}

// Target is a database being migrated, as its store reaches it.
type Target interface {
	// Applied makes the schema_migrations table where it is missing and
	// returns the highest version recorded there.
	Applied(ctx context.Context) (int, error)
	// Apply runs m and records it, in one transaction.
	Apply(ctx context.Context, m Migration) error
}

// Run applies the migrations in dir of fsys that db has not, in order,
// logging each.
func Run(ctx context.Context, fsys fs.FS, dir string, db Target, log *slog.Logger) error {
	all, err := Load(fsys, dir)
	if err != nil {
		return err
	}
	applied, err := db.Applied(ctx)
	if err != nil {
		return err
	}
	pending, err := Pending(all, applied)
	if err != nil {
		return err
	}
	for _, m := range pending {
		if err := db.Apply(ctx, m); err != nil {
			return err
		}
		log.Info("schema migration applied", "version", m.Version, "name", m.Name)
	}
	return nil
}
