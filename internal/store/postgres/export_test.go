package postgres

// OneWriteCounts is what the senders of WriteOne have done: batches sent,
// statements in them, and writes waiting to be taken.
func (db *DB) OneWriteCounts() (batches, statements, queued int64) {
	return db.ones.batches.Load(), db.ones.statements.Load(), db.ones.queued.Load()
}

// OneSenders is how many batches go at once.
const OneSenders = oneSenders
