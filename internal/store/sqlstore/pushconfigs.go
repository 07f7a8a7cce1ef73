package sqlstore

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/store"
)

// The a2a_push_configs table (migration 0017): A2A push notification
// configs and their senders' cursors.

const pushCols = `seq, account_id, task_id, id, url, token_ref, auth_scheme, credentials_ref, sent, sent_state, done, claim_until, created_at`

func (s *Store) scanPush(r Row) (store.PushConfig, error) {
	var c store.PushConfig
	var done int64
	err := r.Scan(&c.Seq, &c.AccountID, &c.TaskID, &c.ID, &c.URL, &c.TokenRef, &c.AuthScheme, &c.CredentialsRef,
		&c.Sent, &c.SentState, &done, s.b.ScanNullTime(&c.ClaimUntil), s.b.ScanTime(&c.CreatedAt))
	c.Done = done != 0
	return c, err
}

// pushByKey reads one config by its key.
func (s *Store) pushByKey(ctx context.Context, q Querier, accountID, taskID, id string) (store.PushConfig, error) {
	return s.scanPush(q.QueryRow(ctx, `SELECT `+pushCols+` FROM a2a_push_configs WHERE account_id = ? AND task_id = ? AND id = ?`,
		accountID, taskID, id))
}

// PutPushConfig implements store.PushConfigs. lockAccount makes the
// look-up, the count and the write one step across processes, so the
// bound per task is exact.
func (s *Store) PutPushConfig(ctx context.Context, c store.PushConfig) (store.PushConfig, *store.PushConfig, error) {
	if err := store.CheckPushConfig(c); err != nil {
		return store.PushConfig{}, nil, err
	}
	now := s.b.Now()
	var out store.PushConfig
	var replaced *store.PushConfig
	err := s.b.Write(ctx, func(tx Querier) error {
		out, replaced = c, nil
		if err := s.lockAccount(ctx, tx, c.AccountID); err != nil {
			return err
		}
		old, err := s.pushByKey(ctx, tx, c.AccountID, c.TaskID, c.ID)
		switch {
		case err == nil:
			replaced = &old
			out.Seq, out.Sent, out.SentState, out.Done, out.ClaimUntil, out.CreatedAt = old.Seq, old.Sent, old.SentState, old.Done, old.ClaimUntil, old.CreatedAt
			_, err = tx.Exec(ctx, `UPDATE a2a_push_configs SET url = ?, token_ref = ?, auth_scheme = ?, credentials_ref = ? WHERE seq = ?`,
				c.URL, c.TokenRef, c.AuthScheme, c.CredentialsRef, old.Seq)
			return err
		case !s.b.IsNoRows(err):
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM a2a_push_configs WHERE account_id = ? AND task_id = ?`, c.AccountID, c.TaskID).Scan(&count); err != nil {
			return err
		}
		if count >= store.MaxPushConfigsPerTask {
			return store.PushConfigsFull(c.TaskID)
		}
		out.Sent, out.SentState, out.Done, out.ClaimUntil, out.CreatedAt = 0, "", false, nil, now
		err = tx.QueryRow(ctx, `INSERT INTO a2a_push_configs (account_id, task_id, id, url, token_ref, auth_scheme, credentials_ref, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
			c.AccountID, c.TaskID, c.ID, c.URL, c.TokenRef, c.AuthScheme, c.CredentialsRef, s.b.Time(now)).Scan(&out.Seq)
		if s.b.IsForeignKey(err) {
			return notFound("account", c.AccountID)
		}
		return err
	})
	if err != nil {
		return store.PushConfig{}, nil, s.b.WriteErr("the push notification config", err)
	}
	return out, replaced, nil
}

// GetPushConfig implements store.PushConfigs.
func (s *Store) GetPushConfig(ctx context.Context, accountID, taskID, id string) (store.PushConfig, error) {
	var c store.PushConfig
	if !s.b.Storable(accountID, taskID, id) {
		return c, pushNotFound(taskID, id)
	}
	err := s.b.Read(ctx, func(q Querier) error {
		var err error
		c, err = s.pushByKey(ctx, q, accountID, taskID, id)
		return err
	})
	switch {
	case s.b.IsNoRows(err):
		return c, pushNotFound(taskID, id)
	case err != nil:
		return c, s.b.ReadErr("the push notification config", err)
	}
	return c, nil
}

// ListPushConfigs implements store.PushConfigs.
func (s *Store) ListPushConfigs(ctx context.Context, accountID, taskID string) ([]store.PushConfig, error) {
	if !s.b.Storable(accountID, taskID) {
		return []store.PushConfig{}, nil
	}
	return collect(ctx, s, "the push notification configs", []store.PushConfig{}, s.scanPush,
		`SELECT `+pushCols+` FROM a2a_push_configs WHERE account_id = ? AND task_id = ? ORDER BY id`, accountID, taskID)
}

// DeletePushConfig implements store.PushConfigs.
func (s *Store) DeletePushConfig(ctx context.Context, accountID, taskID, id string) (store.PushConfig, error) {
	var c store.PushConfig
	if !s.b.Storable(accountID, taskID, id) {
		return c, pushNotFound(taskID, id)
	}
	err := s.b.Write(ctx, func(tx Querier) error {
		var err error
		if c, err = s.pushByKey(ctx, tx, accountID, taskID, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM a2a_push_configs WHERE seq = ?`, c.Seq)
		return err
	})
	if s.b.IsNoRows(err) {
		return c, pushNotFound(taskID, id)
	}
	return c, s.b.WriteErr("the push notification config", err)
}

// PendingPushConfigs implements store.PushConfigs.
func (s *Store) PendingPushConfigs(ctx context.Context, afterSeq int64, now time.Time, limit int) ([]store.PushConfig, error) {
	if limit <= 0 || limit > store.MaxPageSize {
		limit = store.MaxPageSize
	}
	return collect(ctx, s, "the push notification configs", []store.PushConfig{}, s.scanPush,
		`SELECT `+pushCols+` FROM a2a_push_configs WHERE done = 0 AND seq > ? AND (claim_until IS NULL OR claim_until < ?) ORDER BY seq LIMIT ?`,
		afterSeq, s.b.Time(now), limit)
}

// ClaimPushConfig implements store.PushConfigs: one conditional UPDATE, so
// of the senders that read the same cursor one wins.
func (s *Store) ClaimPushConfig(ctx context.Context, seq, sent int64, now, until time.Time) (bool, error) {
	var n int64
	err := s.b.Write(ctx, func(tx Querier) error {
		var err error
		n, err = tx.Exec(ctx, `UPDATE a2a_push_configs SET claim_until = ?
			WHERE seq = ? AND sent = ? AND done = 0 AND (claim_until IS NULL OR claim_until < ?)`,
			s.b.Time(until), seq, sent, s.b.Time(now))
		return err
	})
	return n == 1, s.b.WriteErr("the push notification config", err)
}

// SettlePushConfig implements store.PushConfigs.
func (s *Store) SettlePushConfig(ctx context.Context, seq, sent int64, advance bool, state string, done bool) (bool, error) {
	var n int64
	err := s.b.Write(ctx, func(tx Querier) error {
		var err error
		if advance {
			d := 0
			if done {
				d = 1
			}
			n, err = tx.Exec(ctx, `UPDATE a2a_push_configs SET sent = sent + 1, sent_state = ?, done = ?, claim_until = NULL WHERE seq = ? AND sent = ?`,
				state, d, seq, sent)
			return err
		}
		n, err = tx.Exec(ctx, `UPDATE a2a_push_configs SET claim_until = NULL WHERE seq = ? AND sent = ?`, seq, sent)
		return err
	})
	return n == 1, s.b.WriteErr("the push notification config", err)
}

func pushNotFound(taskID, id string) error {
	return notFound("push notification config of task "+taskID, id)
}
