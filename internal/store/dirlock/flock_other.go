//go:build !unix

package dirlock

import (
	"errors"
	"os"
)

var errLocked = errors.New("dirlock: held by another")

// lockFile is not available here: sluice's data directory needs flock (Linux,
// macOS, the BSDs).
func lockFile(*os.File) error {
	return errors.New("dirlock: file locks are not supported on this platform")
}

func unlockFile(*os.File) {}
