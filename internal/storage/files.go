package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
)

// DefaultMaxFileBytes bounds what Files reads back.
const DefaultMaxFileBytes = 16 << 20

// Files is the file storage: each value is written as JSON to Dir/<account>/<key>,
// where key may hold "/" for sub-folders. Keys are checked up front (storekey),
// and every file access goes through an os.Root opened on the account's folder,
// so neither "..", absolute names nor symlinks can reach outside it.
type Files struct {
	Dir string
	// MaxBytes bounds a file read back (a file may have been put there by hand);
	// default 16 MiB. Writes are bounded by the operation's MaxStoredBytes.
	MaxBytes int64
}

// accountRoot opens Dir/<account>, creating it when create is set.
func (f *Files) accountRoot(account string, create bool) (*os.Root, error) {
	if f.Dir == "" {
		return nil, errors.New("storage: Files.Dir is empty")
	}
	if create {
		if err := os.MkdirAll(f.Dir, 0o700); err != nil {
			return nil, err
		}
	}
	top, err := os.OpenRoot(f.Dir)
	if err != nil {
		return nil, err
	}
	defer top.Close()
	if create {
		if err := top.Mkdir(account, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return top.OpenRoot(account)
}

// Put writes value as JSON. The file is written under a temporary name in the
// same folder and renamed, so a reader never sees half a value.
func (f *Files) Put(_ context.Context, a op.Area, key string, value any) error {
	if err := checkArea(a, key); err != nil {
		return err
	}
	data, err := json.Marshal(value)
	if err != nil {
		return fault.Typed(fault.Invalid, fault.DataError, "the value cannot be stored as JSON").WithCause(err)
	}
	root, err := f.accountRoot(a.Account, true)
	if err != nil {
		return ioFault(a, key, err)
	}
	defer root.Close()
	dir := path.Dir(key)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return ioFault(a, key, err)
		}
	}
	tmp := path.Join(dir, ids.New(ids.TempFile))
	if err := root.WriteFile(tmp, data, 0o600); err != nil {
		root.Remove(tmp)
		return ioFault(a, key, err)
	}
	if err := root.Rename(tmp, key); err != nil {
		root.Remove(tmp)
		return ioFault(a, key, err)
	}
	return nil
}

// Get reads a value back; a key with no file is missing, not an error.
func (f *Files) Get(_ context.Context, a op.Area, key string) (any, bool, error) {
	if err := checkArea(a, key); err != nil {
		return nil, false, err
	}
	root, err := f.accountRoot(a.Account, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, ioFault(a, key, err)
	}
	defer root.Close()
	file, err := root.Open(key)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, ioFault(a, key, err)
	}
	defer file.Close()
	if st, err := file.Stat(); err == nil && st.IsDir() {
		return nil, false, fault.Typed(fault.Invalid, fault.DataError, "file key %q is a folder, not a value", key).
			WithDetail("storage", a.Storage).WithDetail("key", truncateKey(key))
	}
	max := f.MaxBytes
	if max <= 0 {
		max = DefaultMaxFileBytes
	}
	data, err := io.ReadAll(io.LimitReader(file, max+1))
	if err != nil {
		return nil, false, ioFault(a, key, err)
	}
	if int64(len(data)) > max {
		return nil, false, fault.Typed(fault.Invalid, fault.DataError, "file key %q holds more than %d bytes", key, max).
			WithDetail("storage", a.Storage).WithDetail("key", truncateKey(key))
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false, fault.Typed(fault.Invalid, fault.DataError, "file key %q does not hold a JSON value", key).
			WithDetail("storage", a.Storage).WithDetail("key", truncateKey(key)).WithCause(err)
	}
	return v, true, nil
}

// ioFault reports a file-system failure. An escape attempt that slipped past the
// key rule (a symlink pointing outside) surfaces here as os.Root's refusal.
func ioFault(a op.Area, key string, err error) error {
	msg := fmt.Sprintf("file storage failed for key %q", truncateKey(key))
	kind, typ := fault.Internal, fault.ExecutionError
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
		msg = fmt.Sprintf("file key %q leads outside the account's folder", truncateKey(key))
		kind, typ = fault.PermissionDenied, fault.PermissionError
	} else if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) || errors.Is(err, fs.ErrExist) {
		msg = fmt.Sprintf("file key %q clashes with an existing key (a value cannot also be a folder)", truncateKey(key))
		kind, typ = fault.Invalid, fault.DataError
	}
	return fault.Typed(kind, typ, "%s", msg).WithDetail("storage", a.Storage).WithDetail("key", truncateKey(key)).WithCause(err)
}
