package sqlstore

import (
	"context"

	"github.com/sluicehq/sluice/internal/store"
)

// ClaimSetting implements store.Settings. DO UPDATE with no change returns
// the row that is there, so the claim and the read are one statement.
func (s *Store) ClaimSetting(ctx context.Context, name string, value []byte) ([]byte, error) {
	if err := store.CheckSetting(name, value); err != nil {
		return nil, err
	}
	var stored []byte
	err := s.b.Write(ctx, func(tx Querier) error {
		stored = nil
		return tx.QueryRow(ctx, `INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET name = settings.name RETURNING value`, name, value, s.b.Time(s.b.Now())).Scan(&stored)
	})
	if err != nil {
		return nil, s.b.WriteErr("the setting", err)
	}
	return stored, nil
}

// SwapSetting implements store.Settings.
func (s *Store) SwapSetting(ctx context.Context, name string, old, value []byte) error {
	if err := store.CheckSetting(name, value); err != nil {
		return err
	}
	err := s.b.Write(ctx, func(tx Querier) error {
		var cur []byte
		err := tx.QueryRow(ctx, `SELECT value FROM settings WHERE name = ?`+s.b.RowLock(), name).Scan(&cur)
		if s.b.IsNoRows(err) {
			return notFound("setting", name)
		}
		if err != nil {
			return err
		}
		if string(cur) != string(old) {
			return store.SettingChanged(name)
		}
		_, err = tx.Exec(ctx, `UPDATE settings SET value = ?, updated_at = ? WHERE name = ?`, value, s.b.Time(s.b.Now()), name)
		return err
	})
	return s.b.WriteErr("the setting", err)
}

// GetSetting implements store.Settings.
func (s *Store) GetSetting(ctx context.Context, name string) ([]byte, bool, error) {
	if err := store.CheckID("setting name", name); err != nil {
		return nil, false, err
	}
	var v []byte
	err := s.b.Read(ctx, func(q Querier) error {
		v = nil
		return q.QueryRow(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	})
	if s.b.IsNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.b.ReadErr("the setting", err)
	}
	return v, true, nil
}
