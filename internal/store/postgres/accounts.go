package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

const accountCols = `id, name, permissions, limits, disabled, created_at, updated_at`

// accountRow holds the columns of accountCols as scanned.
type accountRow struct {
	a      store.Account
	perms  string
	limits *string
}

func (r *accountRow) targets() []any {
	return []any{&r.a.ID, &r.a.Name, &r.perms, &r.limits, &r.a.Disabled, &r.a.CreatedAt, &r.a.UpdatedAt}
}

func (r *accountRow) account() (store.Account, error) {
	a := r.a
	if err := json.Unmarshal([]byte(r.perms), &a.Permissions); err != nil {
		return a, fault.New(fault.Internal, "account %q has unreadable permissions", a.ID).WithCause(err)
	}
	a.Limits = rawJSON(r.limits)
	a.CreatedAt, a.UpdatedAt = utc(a.CreatedAt), utc(a.UpdatedAt)
	return a, nil
}

func scanAccount(row pgx.Row) (store.Account, error) {
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
	now := db.now()
	err = db.Write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO accounts (`+accountCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			a.ID, a.Name, perms, jsonText(a.Limits), a.Disabled, now, now)
		if isUnique(err) {
			return fault.New(fault.Conflict, "account %q already exists", a.ID).WithDetail("accountId", a.ID)
		}
		return err
	})
	if err != nil {
		return store.Account{}, writeErr("the account", err)
	}
	a.CreatedAt, a.UpdatedAt = now, now
	return a, nil
}

// GetAccount implements store.Accounts.
func (db *DB) GetAccount(ctx context.Context, id string) (store.Account, error) {
	if !storable(id) {
		return store.Account{}, notFound("account", id)
	}
	var a store.Account
	err := db.Read(ctx, func(q Querier) (err error) {
		a, err = scanAccount(q.QueryRow(ctx, `SELECT `+accountCols+` FROM accounts WHERE id = $1`, id))
		return err
	})
	if isNoRows(err) {
		return store.Account{}, notFound("account", id)
	}
	if err != nil {
		return store.Account{}, readErr("the account", err)
	}
	return a, nil
}

// ListAccounts implements store.Accounts: id order, the cursor is the last id.
func (db *DB) ListAccounts(ctx context.Context, p store.Page) ([]store.Account, string, error) {
	limit, err := store.PageLimit(p.Limit)
	if err != nil {
		return nil, "", err
	}
	after, err := idCursor(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	var out []store.Account
	err = db.Read(ctx, func(q Querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT `+accountCols+` FROM accounts WHERE id > $1 ORDER BY id LIMIT $2`, after, limit+1)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			a, err := scanAccount(rows)
			if err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	if err != nil {
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
	var perms *string
	if u.Permissions != nil {
		s, err := permissionsJSON(*u.Permissions)
		if err != nil {
			return store.Account{}, err
		}
		perms = &s
	}
	setLimits := len(u.Limits) > 0
	var limits *string
	if setLimits && string(u.Limits) != "null" {
		limits = jsonText(u.Limits)
	}
	if !storable(id) {
		return store.Account{}, notFound("account", id)
	}
	now := db.now()
	var out store.Account
	err := db.Write(ctx, func(tx pgx.Tx) (err error) {
		out, err = scanAccount(tx.QueryRow(ctx, `UPDATE accounts SET
			name = COALESCE($1, name),
			permissions = COALESCE($2, permissions),
			limits = CASE WHEN $3 THEN $4 ELSE limits END,
			disabled = COALESCE($5, disabled),
			updated_at = $6
			WHERE id = $7
			RETURNING `+accountCols, u.Name, perms, setLimits, limits, u.Disabled, now, id))
		if isNoRows(err) {
			return notFound("account", id)
		}
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

// lockAccount takes the account's row lock for the rest of tx (FOR NO KEY
// UPDATE: it serialises the account's bounded inserts, such as keys, while
// still letting rows that reference it be inserted), or says NotFound.
func lockAccount(ctx context.Context, tx pgx.Tx, id string) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, id).Scan(&one)
	if isNoRows(err) {
		return notFound("account", id)
	}
	return err
}
