package sqlite

import (
	"context"
	"database/sql"
	"net/url"
	"time"
)

// DefaultCheckpointEvery is how often the WAL is checkpointed into the
// database file.
const DefaultCheckpointEvery = time.Second

// walCheckpointer copies the WAL into the database file from its own
// connection. SQLite would otherwise checkpoint on the commit that crosses
// 1000 WAL pages, inside the writer, and that checkpoint's fsyncs stall every
// write waiting behind it (10-40 ms on this machine's disk, seen as the p99 of
// a whole API call). A PASSIVE checkpoint here runs beside the writer and
// readers without blocking them.
type walCheckpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(path string, common url.Values, every time.Duration, db *DB) (*walCheckpointer, error) {
	q := url.Values{"_pragma": common["_pragma"]}
	cdb, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	cdb.SetMaxOpenConns(1)
	cdb.SetMaxIdleConns(1)
	cdb.SetConnMaxIdleTime(0)
	c := &walCheckpointer{db: cdb, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				if _, err := cdb.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
					db.log.Warn("WAL checkpoint failed", "error", err)
				}
			}
		}
	}()
	return c, nil
}

// close stops the checkpointer after a last, complete checkpoint.
func (c *walCheckpointer) close() error {
	close(c.stop)
	<-c.done
	_, _ = c.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(TRUNCATE)`)
	return c.db.Close()
}
