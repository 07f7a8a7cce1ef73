package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

const accountCols = `id, name, permissions, limits, disabled, created_at, updated_at`

// accountRow holds the columns of accountCols as scanned.
type accountRow struct {
	a                store.Account
	perms            string
	limits           sql.NullString
	created, updated int64
}

func (r *accountRow) targets() []any {
	return []any{&r.a.ID, &r.a.Name, &r.perms, &r.limits, &r.a.Disabled, &r.created, &r.updated}
}

func (r *accountRow) account() (store.Account, error) {
	a := r.a
	if err := json.Unmarshal([]byte(r.perms), &a.Permissions); err != nil {
		return a, fault.New(fault.Internal, "account %q has unreadable permissions", a.ID).WithCause(err)
	}
	a.Limits = rawJSON(r.limits)
	a.CreatedAt, a.UpdatedAt = fromMicros(r.created), fromMicros(r.updated)
	return a, nil
}

func scanAccount(row interface{ Scan(...any) error }) (store.Account, error) {
	var r accountRow
	if err := row.Scan(r.targets()...); err != nil {
		return store.Account{}, err
	}
	return r.account()
}

func permissionsJSON(p policy.Permissions) (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fault.New(fault.Invalid, "permissions cannot be stored").WithCause(err)
	}
	if len(b) > store.MaxPermissionsBytes {
		return "", fault.New(fault.Invalid, "permissions: %d bytes, over the limit of %d", len(b), store.MaxPermissionsBytes)
	}
	return string(b), nil
}

// CreateAccount implements store.Accounts.
func (db *DB) CreateAccount(ctx context.Context, a store.Account) (store.Account, error) {
	if err := store.CheckAccount(a); err != nil {
		return store.Account{}, err
	}
	perms, err := permissionsJSON(a.Permissions)
	if err != nil {
		return store.Account{}, err
	}
	now := db.clock.Now()
	err = db.Write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`INSERT INTO accounts (`+accountCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.Name, perms, jsonText(a.Limits), a.Disabled, micros(now), micros(now))
		if isUnique(err) {
			return fault.New(fault.Conflict, "account %q already exists", a.ID).WithDetail("accountId", a.ID)
		}
		return err
	})
	if err != nil {
		return store.Account{}, writeErr("the account", err)
	}
	a.CreatedAt, a.UpdatedAt = fromMicros(micros(now)), fromMicros(micros(now))
	return a, nil
}

// GetAccount implements store.Accounts.
func (db *DB) GetAccount(ctx context.Context, id string) (store.Account, error) {
	a, err := scanAccount(db.ReadRow(ctx, `SELECT `+accountCols+` FROM accounts WHERE id = ?`, id))
	if isNoRows(err) {
		return a, notFound("account", id)
	}
	if err != nil {
		return a, readErr("the account", err)
	}
	return a, nil
}

// ListAccounts implements store.Accounts: id order, the cursor is the last id.
func (db *DB) ListAccounts(ctx context.Context, p store.Page) ([]store.Account, string, error) {
	limit, err := store.PageLimit(p.Limit)
	if err != nil {
		return nil, "", err
	}
	rows, err := db.Read(ctx, `SELECT `+accountCols+` FROM accounts WHERE id > ? ORDER BY id LIMIT ?`, p.Cursor, limit+1)
	if err != nil {
		return nil, "", readErr("accounts", err)
	}
	defer rows.Close()
	var out []store.Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, "", readErr("accounts", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, "", readErr("accounts", err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// UpdateAccount implements store.Accounts.
func (db *DB) UpdateAccount(ctx context.Context, id string, u store.AccountUpdate) (store.Account, error) {
	if err := store.CheckAccountUpdate(u); err != nil {
		return store.Account{}, err
	}
	var perms sql.NullString
	if u.Permissions != nil {
		s, err := permissionsJSON(*u.Permissions)
		if err != nil {
			return store.Account{}, err
		}
		perms = sql.NullString{String: s, Valid: true}
	}
	var name sql.NullString
	if u.Name != nil {
		name = sql.NullString{String: *u.Name, Valid: true}
	}
	var disabled sql.NullBool
	if u.Disabled != nil {
		disabled = sql.NullBool{Bool: *u.Disabled, Valid: true}
	}
	setLimits, limits := len(u.Limits) > 0, sql.NullString{}
	if setLimits && string(u.Limits) != "null" {
		limits = jsonText(u.Limits)
	}
	now := micros(db.clock.Now())
	var out store.Account
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE accounts SET
			name = COALESCE(?, name),
			permissions = COALESCE(?, permissions),
			limits = CASE WHEN ? THEN ? ELSE limits END,
			disabled = COALESCE(?, disabled),
			updated_at = ?
			WHERE id = ?`, name, perms, setLimits, limits, disabled, now, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("account", id)
		}
		out, err = scanAccount(tx.QueryRow(`SELECT `+accountCols+` FROM accounts WHERE id = ?`, id))
		return err
	})
	if err != nil {
		return store.Account{}, writeErr("the account", err)
	}
	return out, nil
}

// DisableAccount implements store.Accounts.
func (db *DB) DisableAccount(ctx context.Context, id string) error {
	yes := true
	_, err := db.UpdateAccount(ctx, id, store.AccountUpdate{Disabled: &yes})
	return err
}
