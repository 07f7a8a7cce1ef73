//go:build unix

package dirlock

import (
	"errors"
	"os"
	"syscall"
)

var errLocked = errors.New("dirlock: held by another")

// lockFile takes an exclusive flock without waiting. flock locks belong to the
// open file description, so a second open of the same file, in this process or
// another, is refused.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		default:
			return err
		}
	}
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
