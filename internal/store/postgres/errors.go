package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluicehq/sluice/internal/fault"
)

// RetryAfter is the hint given with Unavailable errors of a database that
// cannot be reached: the pool dials again on the next call.
const RetryAfter = time.Second

// unavailable is the error for a database that cannot be used: the caller may
// retry; the cause is logged, never shown.
func unavailable(msg string, cause error) *fault.Error {
	return fault.New(fault.Unavailable, "%s", msg).WithCause(cause).Retry(RetryAfter)
}

func errClosed() error {
	return fault.New(fault.Unavailable, "the store is closed").Retry(0)
}

// pgCode is the SQLSTATE of a server error, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func isUnique(err error) bool     { return pgCode(err) == "23505" }
func isForeignKey(err error) bool { return pgCode(err) == "23503" }
func isNoRows(err error) bool     { return errors.Is(err, pgx.ErrNoRows) }

// IsNoRows reports whether err says a query returned no row (for the queue's
// table in the same database).
func IsNoRows(err error) bool { return isNoRows(err) }

// transient reports whether err is a failure PostgreSQL asks to retry: the
// transaction was rolled back because of a concurrent one.
func transient(err error) bool {
	switch pgCode(err) {
	case "40001", "40P01": // serialization_failure, deadlock_detected
		return true
	}
	return false
}

// lostConnErr reports whether err says the connection is gone: the server
// ended it (administrator command, shutdown, crash) or the network did.
func lostConnErr(err error) bool {
	code := pgCode(err)
	switch {
	case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03":
		return true
	case code != "":
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF")
}

// classify turns a failure into a fault naming what (e.g. "the account") and
// verb ("read", "written"). A context's error stays what it is; a fault
// passes through.
func classify(what, verb string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		// No connection could be made (even when a connect timeout ran out).
		return unavailable(fmt.Sprintf("%s cannot be %s: the database cannot be reached", what, verb), err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	code := pgCode(err)
	switch {
	case strings.HasPrefix(code, "22"):
		// Data exception: text that is not UTF-8 or holds a NUL byte, a time
		// out of range. Go's checks pass such input; PostgreSQL refuses it.
		return fault.New(fault.Invalid, "%s holds a value the database cannot store (text that is not valid UTF-8 or holds a NUL byte, or a number or time out of range)", what).
			WithCause(err)
	case strings.HasPrefix(code, "40"): // rolled back for concurrent transactions, retries spent
		return unavailable(fmt.Sprintf("%s cannot be %s now: it kept conflicting with concurrent writes", what, verb), err)
	case strings.HasPrefix(code, "54"): // program limit exceeded
		return fault.New(fault.Invalid, "%s is too large for the database", what).WithCause(err)
	case strings.HasPrefix(code, "42"), strings.HasPrefix(code, "XX"), strings.HasPrefix(code, "0A"), strings.HasPrefix(code, "P0"):
		// A statement the database does not understand or an internal
		// error: a bug or a schema out of step, not a passing outage.
		return fault.New(fault.Internal, "%s cannot be %s: the database refused the statement", what, verb).WithCause(err)
	}
	return unavailable(fmt.Sprintf("%s cannot be %s: the database is unavailable", what, verb), err)
}

// readErr is classify for reads.
func readErr(what string, err error) error { return classify(what, "read", err) }

// writeErr is classify for writes.
func writeErr(what string, err error) error { return classify(what, "written", err) }

// ReadError turns a failed read of what into a fault (for the queue).
func ReadError(what string, err error) error { return readErr(what, err) }

// WriteError turns a failed write of what into a fault (for the queue).
func WriteError(what string, err error) error { return writeErr(what, err) }

// commitUnknown is the error when the connection died while COMMIT was on its
// way: the write may or may not be stored, so it is not acknowledged.
func commitUnknown(err error) error {
	return fault.New(fault.Unavailable, "the database connection was lost during the commit: the write may or may not have been stored").
		WithCause(err).Retry(RetryAfter).
		WithSuggestions("Retry with the same idempotency key (executionId), or read back to see whether it was stored")
}

// connectErr explains why the database could not be reached at start, naming
// the host, port, database and user (never the password).
func connectErr(ctx context.Context, cc *pgx.ConnConfig, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	where := fmt.Sprintf("PostgreSQL at %s:%d", cc.Host, cc.Port)
	if strings.HasPrefix(cc.Host, "/") {
		where = fmt.Sprintf("PostgreSQL on socket %s", cc.Host)
	}
	switch code := pgCode(err); {
	case code == "28P01" || code == "28000":
		return fault.New(fault.Unavailable, "%s refused user %q: wrong or missing credentials, or no access to database %q", where, cc.User, cc.Database).
			WithCause(err).WithSuggestions("Check the user and password of the connection string, and pg_hba.conf on the server")
	case code == "3D000":
		return fault.New(fault.Unavailable, "%s has no database %q", where, cc.Database).
			WithCause(err).WithSuggestions("Create the database first (createdb), or fix the database name of the connection string")
	case code == "53300":
		return unavailable(fmt.Sprintf("%s has no connection slot left", where), err)
	case code != "":
		return unavailable(fmt.Sprintf("%s refused the connection to database %q", where, cc.Database), err)
	}
	return unavailable(fmt.Sprintf("%s cannot be reached", where), err).
		WithSuggestions("Check that PostgreSQL runs and that host and port of the connection string are right")
}
