package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

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
