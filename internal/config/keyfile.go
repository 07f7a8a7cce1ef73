package config

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// maxKeyFileBytes bounds what is read from a key file: an encoded key of 64
// bytes is 128 hex characters, so anything larger is not a key.
const maxKeyFileBytes = 1024

// KeySource says where one piece of server key material (the vault's master
// key, the API-key pepper) comes from: the environment variable Env if set,
// else the file File in the data directory Dir, which is created with GenLen
// random bytes on first start. Both hold the key as base64 (standard or URL
// alphabet, padded or not) or hex; see DecodeKey.
type KeySource struct {
	What      string // "master key": names the key in messages
	Env       string // e.g. SLUICE_MASTER_KEY
	Dir       string // the data directory
	File      string // e.g. master.key
	MinLen    int    // decoded length bounds, in bytes
	MaxLen    int
	GenLen    int                         // bytes generated when the file is created
	LookupEnv func(string) (string, bool) // nil: os.LookupEnv
}

// LoadedKey is key material and where it came from. Bytes is secret: never log
// or print it.
type LoadedKey struct {
	Bytes   []byte
	Origin  string // "SLUICE_MASTER_KEY" or the file's path
	Created bool   // the file did not exist and was created just now
}

// LoadKey reads the key of src from its environment variable or its file,
// creating the file (mode 0600, directory 0700) when neither exists. A file
// that group or others may read, or a key of the wrong length, is refused; no
// message ever contains key material.
func LoadKey(src KeySource) (LoadedKey, error) {
	lookup := src.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if text, ok := lookup(src.Env); ok && strings.TrimSpace(text) != "" {
		b, err := decodeKeyLen(text, src.MinLen, src.MaxLen)
		if err != nil {
			return LoadedKey{}, keyError(src.What, src.Env, err)
		}
		return LoadedKey{Bytes: b, Origin: src.Env}, nil
	}
	path := filepath.Join(src.Dir, src.File)
	b, err := ReadKeyFile(path, src.MinLen, src.MaxLen)
	if err == nil {
		return LoadedKey{Bytes: b, Origin: path}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return LoadedKey{}, keyError(src.What, path, err)
	}
	b, created, err := createKeyFile(src.Dir, path, src.GenLen)
	if err != nil {
		return LoadedKey{}, keyError(src.What, path, err)
	}
	if err := checkLen(b, src.MinLen, src.MaxLen); err != nil {
		return LoadedKey{}, keyError(src.What, path, err)
	}
	return LoadedKey{Bytes: b, Origin: path, Created: created}, nil
}

// ReadKeyFile reads and decodes the key in path (ReadSecretFile, then
// DecodeKey). A key whose decoded length is outside [min, max] is refused. A
// missing file is an error wrapping fs.ErrNotExist.
func ReadKeyFile(path string, min, max int) ([]byte, error) {
	text, err := ReadSecretFile(path)
	if err != nil {
		return nil, err
	}
	return decodeKeyLen(text, min, max)
}

// ReadSecretFile reads a small secret file: it refuses a file that group or
// others may access (on systems with Unix permissions), a file that is not a
// regular file, and one larger than 1 KiB. White space around the secret is
// dropped. Errors never hold the content.
func ReadSecretFile(path string) (string, error) {
	st, err := os.Stat(path) // follows symlinks: mounted secrets are often links
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("is not a regular file")
	}
	if perm := st.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return "", fmt.Errorf("has mode %#o; it must be readable by its owner only (chmod 600 %s)", perm, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err != nil {
		return "", err
	}
	if len(raw) > maxKeyFileBytes {
		return "", fmt.Errorf("is larger than %d bytes; it does not hold a key", maxKeyFileBytes)
	}
	return strings.TrimSpace(string(raw)), nil
}

// DecodeKey decodes key text: surrounding white space is ignored; text made
// only of an even number of hex digits is hex, anything else must be base64
// (standard or URL alphabet, with or without padding).
func DecodeKey(text string) ([]byte, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return nil, fmt.Errorf("is empty")
	}
	if len(s)%2 == 0 && isHex(s) {
		return hex.DecodeString(s)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	// The text itself is never quoted: it may be a key with one typo.
	return nil, fmt.Errorf("is neither base64 nor hex")
}

// EncodeKey is the form LoadKey writes and DecodeKey reads: standard base64.
func EncodeKey(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func decodeKeyLen(text string, min, max int) ([]byte, error) {
	b, err := DecodeKey(text)
	if err != nil {
		return nil, err
	}
	return b, checkLen(b, min, max)
}

func checkLen(b []byte, min, max int) error {
	switch {
	case len(b) < min || len(b) > max:
		if min == max {
			return fmt.Errorf("decodes to %d bytes; it must be exactly %d", len(b), min)
		}
		return fmt.Errorf("decodes to %d bytes; it must be %d to %d", len(b), min, max)
	}
	return nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// createKeyFile writes n random bytes, base64-encoded, to path. The key is
// written to a temporary file first and linked into place, so a concurrent
// starter either wins or reads the complete key of the one that did, never a
// half-written file.
func createKeyFile(dir, path string, n int) (key []byte, created bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, err
	}
	key = make([]byte, n)
	if _, err := rand.Read(key); err != nil {
		return nil, false, err
	}
	tmp, err := os.CreateTemp(dir, ".key-*.tmp")
	if err != nil {
		return nil, false, err
	}
	defer os.Remove(tmp.Name())
	if err := writeSynced(tmp, EncodeKey(key)+"\n"); err != nil {
		return nil, false, err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) { // another starter won: use its key
			key, err = ReadKeyFile(path, 0, maxKeyFileBytes)
			return key, false, err
		}
		return nil, false, err
	}
	syncDir(dir)
	return key, true, nil
}

// writeSynced makes f owner-only, writes text, syncs and closes it.
func writeSynced(f *os.File, text string) error {
	err := f.Chmod(0o600)
	if err == nil {
		_, err = f.WriteString(text)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes the new directory entry durable where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

func keyError(what, origin string, err error) *fault.Error {
	return fault.New(fault.Invalid, "%s %s: %v", what, origin, err).
		WithDetail("origin", origin).
		WithSuggestions("Give the " + what + " as base64 or hex of random bytes, e.g. `openssl rand -base64 32`")
}
