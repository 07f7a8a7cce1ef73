// Package dirlock keeps two sluice processes from opening one data directory:
// the first takes an exclusive flock on DIR/sluice.lock and writes who it is
// (pid, host, start time) into it; a second gets an error naming that holder.
// The kernel drops the lock when the holder dies, kill -9 included, so a stale
// lock file never blocks a restart.
package dirlock

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// FileName is the lock file inside the data directory.
const FileName = "sluice.lock"

// Holder is who holds a lock.
type Holder struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

func (h Holder) String() string {
	return fmt.Sprintf("pid %d on host %s since %s", h.PID, h.Host, h.Since.UTC().Format(time.RFC3339))
}

// Lock is a held directory lock.
type Lock struct {
	f      *os.File
	holder Holder
}

// Acquire locks dir (creating it with mode 0700 when missing) for this process,
// started at since. When another holds it, the error is Unavailable and names
// the holder as its lock file says.
func Acquire(dir string, since time.Time) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fault.New(fault.Unavailable, "data directory %s cannot be created", dir).WithCause(err)
	}
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fault.New(fault.Unavailable, "lock file %s cannot be opened", path).WithCause(err)
	}
	if err := lockFile(f); err != nil {
		defer f.Close()
		if err != errLocked {
			return nil, fault.New(fault.Unavailable, "lock file %s cannot be locked", path).WithCause(err)
		}
		who := "another process (its lock file names no holder yet)"
		if h, ok := readHolder(f); ok {
			who = h.String()
		}
		return nil, fault.New(fault.Unavailable, "data directory %s is in use by %s", dir, who).
			WithDetail("lockFile", path).
			WithSuggestions("Stop the other sluice process, or give this one another data directory")
	}
	host, _ := os.Hostname()
	l := &Lock{f: f, holder: Holder{PID: os.Getpid(), Host: host, Since: since.UTC()}}
	b, _ := json.Marshal(l.holder)
	if err := writeHolder(f, append(b, '\n')); err != nil {
		l.Release()
		return nil, fault.New(fault.Unavailable, "lock file %s cannot be written", path).WithCause(err)
	}
	return l, nil
}

// Holder says who holds l (this process).
func (l *Lock) Holder() Holder { return l.holder }

// Release unlocks and closes the lock file. The file stays: removing it would
// let a process that opened the old file and one that creates a new one both
// believe they hold the lock.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	unlockFile(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}

func writeHolder(f *os.File, b []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	return f.Sync()
}

// readHolder reads what the lock file says; the holder may be halfway through
// writing it, and then nothing is read.
func readHolder(f *os.File) (Holder, bool) {
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return Holder{}, false
	}
	var h Holder
	if json.Unmarshal(b, &h) != nil || h.PID == 0 {
		return Holder{}, false
	}
	return h, true
}
