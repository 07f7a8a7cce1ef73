package sqlstore

import (
	"context"
	"encoding/json"

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

func (r *accountRow) targets(d Dialect) []any {
	return []any{&r.a.ID, &r.a.Name, &r.perms, &r.limits, &r.a.Disabled, d.ScanTime(&r.a.CreatedAt), d.ScanTime(&r.a.UpdatedAt)}
}

func (r *accountRow) account() (store.Account, error) {
	a := r.a
	if err := json.Unmarshal([]byte(r.perms), &a.Permissions); err != nil {
		return a, fault.New(fault.Internal, "account %q has unreadable permissions", a.ID).WithCause(err)
	}
	a.Limits = rawJSON(r.limits)
	return a, nil
}

func (s *Store) scanAccount(row Row) (store.Account, error) {
	var r accountRow
	if err := row.Scan(r.targets(s.b)...); err != nil {
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
func (s *Store) CreateAccount(ctx context.Context, a store.Account) (store.Account, error) {
	if err := store.CheckAccount(a); err != nil {
		return store.Account{}, err
	}
	perms, err := permissionsJSON(a.Permissions)
	if err != nil {
		return store.Account{}, err
	}
	now := s.b.Now()
	err = s.b.Write(ctx, func(tx Querier) error {
		if err := s.nameFree(ctx, tx, a.Name, ""); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO accounts (`+accountCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.Name, perms, jsonText(a.Limits), a.Disabled, s.b.Time(now), s.b.Time(now))
		if s.b.IsUnique(err) {
			// The id, or a name taken by a writer that committed after the
			// check above (PostgreSQL, several gateways).
			return fault.New(fault.Conflict, "account %q or an account named %q already exists", a.ID, a.Name).WithDetail("accountId", a.ID)
		}
		return err
	})
	if err != nil {
		return store.Account{}, s.b.WriteErr("the account", err)
	}
	a.CreatedAt, a.UpdatedAt = now, now
	return a, nil
}

// GetAccount implements store.Accounts.
func (s *Store) GetAccount(ctx context.Context, id string) (store.Account, error) {
	var r accountRow
	if err := s.readOne(ctx, "account", id, `SELECT `+accountCols+` FROM accounts WHERE id = ?`, r.targets(s.b)...); err != nil {
		return store.Account{}, err
	}
	return r.account()
}

// ListAccounts implements store.Accounts: id order, the cursor is the last id.
func (s *Store) ListAccounts(ctx context.Context, p store.Page) ([]store.Account, string, error) {
	limit, after, err := s.idPage(p)
	if err != nil {
		return nil, "", err
	}
	out, err := collect(ctx, s, "accounts", nil, s.scanAccount, `SELECT `+accountCols+` FROM accounts WHERE id > ? ORDER BY id LIMIT ?`, after, limit+1)
	if err != nil {
		return nil, "", err
	}
	out, next := nextPage(out, limit, func(a store.Account) string { return a.ID })
	return out, next, nil
}

// UpdateAccount implements store.Accounts.
func (s *Store) UpdateAccount(ctx context.Context, id string, u store.AccountUpdate) (store.Account, error) {
	if err := store.CheckAccountUpdate(u); err != nil {
		return store.Account{}, err
	}
	var perms *string
	if u.Permissions != nil {
		p, err := permissionsJSON(*u.Permissions)
		if err != nil {
			return store.Account{}, err
		}
		perms = &p
	}
	setLimits := len(u.Limits) > 0
	var limits *string
	if setLimits && string(u.Limits) != "null" {
		limits = jsonText(u.Limits)
	}
	if !s.b.Storable(id) {
		return store.Account{}, notFound("account", id)
	}
	now := s.b.Now()
	var out store.Account
	err := s.b.Write(ctx, func(tx Querier) (err error) {
		out, err = s.scanAccount(tx.QueryRow(ctx, `UPDATE accounts SET
			name = COALESCE(?, name),
			permissions = COALESCE(?, permissions),
			limits = CASE WHEN ? THEN ? ELSE limits END,
			disabled = COALESCE(?, disabled),
			updated_at = ?
			WHERE id = ?
			RETURNING `+accountCols, u.Name, perms, setLimits, limits, u.Disabled, s.b.Time(now), id))
		if s.b.IsNoRows(err) {
			return notFound("account", id)
		}
		if s.b.IsUnique(err) && u.Name != nil {
			return nameTaken(*u.Name) // the only unique column an update sets
		}
		return err
	})
	if err != nil {
		return store.Account{}, s.b.WriteErr("the account", err)
	}
	return out, nil
}

// DisableAccount implements store.Accounts.
func (s *Store) DisableAccount(ctx context.Context, id string) error {
	yes := true
	_, err := s.UpdateAccount(ctx, id, store.AccountUpdate{Disabled: &yes})
	return err
}

// lockAccount makes the account's bounded inserts (keys, servers) one step
// with their count: it takes the account's row lock for the rest of tx where
// the dialect has one (PostgreSQL's FOR NO KEY UPDATE still lets rows that
// reference the account be inserted), and says NotFound for no account. With
// no row lock (SQLite's one writer) it does nothing: the insert's foreign key
// reports a missing account.
func (s *Store) lockAccount(ctx context.Context, tx Querier, id string) error {
	lock := s.b.RowLock()
	if lock == "" {
		return nil
	}
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = ?`+lock, id).Scan(&one)
	if s.b.IsNoRows(err) {
		return notFound("account", id)
	}
	return err
}

// nameFree checks, before an insert, that no account but self is named
// name (account names are unique, migration 0018; "" may repeat), so the
// 409 names the name rather than the id or name the index refuses; the
// index still stops another writer taking the name in between. An update
// needs no check: its only unique column is the name.
func (s *Store) nameFree(ctx context.Context, tx Querier, name, self string) error {
	if name == "" {
		return nil
	}
	var id string
	err := tx.QueryRow(ctx, `SELECT id FROM accounts WHERE name = ? AND id <> ?`, name, self).Scan(&id)
	if err == nil {
		return nameTaken(name).WithDetail("accountId", id)
	}
	if s.b.IsNoRows(err) {
		return nil
	}
	return err
}

func nameTaken(name string) *fault.Error {
	return fault.New(fault.Conflict, "an account named %q already exists; account names are unique", name).
		WithDetail("field", "name").WithSuggestions("Choose another name, or rename the other account first")
}
