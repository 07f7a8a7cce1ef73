package sqlstore

import "context"

// upsert writes one row, the update of an existing one or a new one, and
// says whether it inserted it: "INSERT INTO "+into+" VALUES (...)" with
// insertArgs, and "UPDATE "+update with updateArgs for a row that exists,
// set is the DO UPDATE SET clause that does the same from excluded. Where
// the dialect has an Inserted expression that is one upsert statement;
// else the update is tried first (an existing row is one statement) and a
// row that is not there is inserted, or updated after all where a
// concurrent writer inserted it first.
func (s *Store) upsert(ctx context.Context, tx Querier, into, conflict, set string, insertArgs []any, update string, updateArgs []any) (bool, error) {
	values := "VALUES (?" + repeatPlaceholders(len(insertArgs)-1) + ")"
	if inserted := s.b.Inserted(); inserted != "" {
		var ok bool
		err := tx.QueryRow(ctx, "INSERT INTO "+into+" "+values+" ON CONFLICT "+conflict+" DO UPDATE SET "+set+
			" RETURNING "+inserted, insertArgs...).Scan(&ok)
		return ok, err
	}
	if n, err := tx.Exec(ctx, "UPDATE "+update, updateArgs...); err != nil || n == 1 {
		return false, err
	}
	// Exec's counts, not RETURNING: SQLite's QueryRow costs a cursor.
	n, err := tx.Exec(ctx, "INSERT INTO "+into+" "+values+" ON CONFLICT "+conflict+" DO NOTHING", insertArgs...)
	if err != nil || n == 1 {
		return n == 1, err
	}
	_, err = tx.Exec(ctx, "UPDATE "+update, updateArgs...)
	return false, err
}
