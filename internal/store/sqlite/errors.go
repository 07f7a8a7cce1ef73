package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sluicehq/sluice/internal/fault"
)

// unavailable is the error for a database that cannot be used: the caller may
// retry; the cause is logged, never shown.
func unavailable(msg string, cause error) *fault.Error {
	return fault.New(fault.Unavailable, "%s", msg).WithCause(cause).Retry(0)
}

// readErr turns a failure of a read into a fault: a context error stays what
// it is, anything else is Unavailable.
func readErr(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return unavailable(what+" cannot be read", err)
}

// writeErr does the same for a write's failure (nil stays nil).
func writeErr(what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return unavailable(what+" cannot be written", err)
}

// isConstraint reports whether err is the SQLite constraint failure code
// (an extended code such as SQLITE_CONSTRAINT_UNIQUE).
func isConstraint(err error, code int) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == code
}

func isUnique(err error) bool {
	return isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) || isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

func isForeignKey(err error) bool { return isConstraint(err, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY) }

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
