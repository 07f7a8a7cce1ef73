package vault

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
)

// Where the keyring comes from (docs/configuration.md, "Vault master key").
const (
	EnvMasterKey         = "SLUICE_MASTER_KEY"
	EnvMasterKeyPrevious = "SLUICE_MASTER_KEY_PREVIOUS" // comma-separated
	MasterKeyFile        = "master.key"
	// Files named master.key.<anything> in the data directory are previous
	// keys, e.g. master.key.2026-11 after `mv master.key master.key.2026-11`.
	previousKeyPrefix = MasterKeyFile + "."
)

// Keyring is the current master key, which seals, and any previous keys, which
// only open records sealed before a rotation.
type Keyring struct {
	current MasterKey
	byID    map[string]MasterKey
	origin  string
	created bool
}

// NewKeyring makes a keyring sealing with current and opening with current and
// every previous key. A previous key equal to current is ignored.
func NewKeyring(current MasterKey, previous ...MasterKey) (*Keyring, error) {
	if current.raw == nil {
		return nil, fmt.Errorf("vault: the keyring needs a current master key")
	}
	r := &Keyring{current: current, byID: map[string]MasterKey{current.id: current}}
	for _, k := range previous {
		if k.raw == nil {
			return nil, fmt.Errorf("vault: a previous master key is empty")
		}
		r.byID[k.id] = k
	}
	return r, nil
}

// KeyringSource says where LoadKeyring looks.
type KeyringSource struct {
	DataDir   string
	LookupEnv func(string) (string, bool) // nil: os.LookupEnv
}

// LoadKeyring loads the current master key from SLUICE_MASTER_KEY or, when that
// is unset, from master.key in the data directory (created, mode 0600, on first
// start), and previous keys from SLUICE_MASTER_KEY_PREVIOUS (comma-separated)
// and from files master.key.* in the data directory. Every key is base64 or hex
// of 32 bytes; key files must be readable by their owner only.
func LoadKeyring(src KeyringSource) (*Keyring, error) {
	lookup := src.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	loaded, err := config.LoadKey(config.KeySource{
		What: "master key", Env: EnvMasterKey, Dir: src.DataDir, File: MasterKeyFile,
		MinLen: MasterKeyLen, MaxLen: MasterKeyLen, GenLen: MasterKeyLen, LookupEnv: lookup,
	})
	if err != nil {
		return nil, err
	}
	current, err := NewMasterKey(loaded.Bytes)
	if err != nil {
		return nil, err
	}
	var previous []MasterKey
	if text, ok := lookup(EnvMasterKeyPrevious); ok {
		for i, part := range strings.Split(text, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			k, err := ParseMasterKey(part)
			if err != nil {
				return nil, fault.New(fault.Invalid, "%s entry %d: %s", EnvMasterKeyPrevious, i+1, fault.From(err).Message)
			}
			previous = append(previous, k)
		}
	}
	files, err := previousKeyFiles(src.DataDir)
	if err != nil {
		return nil, err
	}
	for _, path := range files {
		b, err := config.ReadKeyFile(path, MasterKeyLen, MasterKeyLen)
		if err != nil {
			return nil, fault.New(fault.Invalid, "previous master key %s: %v", path, err)
		}
		k, err := NewMasterKey(b)
		if err != nil {
			return nil, err
		}
		previous = append(previous, k)
	}
	r, err := NewKeyring(current, previous...)
	if err != nil {
		return nil, err
	}
	r.origin, r.created = loaded.Origin, loaded.Created
	return r, nil
}

func previousKeyFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), previousKeyPrefix) && !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// CurrentID is the id of the key that seals.
func (r *Keyring) CurrentID() string { return r.current.id }

// IDs lists the ids of every key that opens, sorted.
func (r *Keyring) IDs() []string {
	out := make([]string, 0, len(r.byID))
	for id := range r.byID {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Origin says where the current key came from: SLUICE_MASTER_KEY or a path.
func (r *Keyring) Origin() string { return r.origin }

// Created reports that the current key's file was created by LoadKeyring: the
// operator should back it up, as losing it loses every credential.
func (r *Keyring) Created() bool { return r.created }

func (r *Keyring) key(id string) (MasterKey, bool) {
	k, ok := r.byID[id]
	return k, ok
}

// String shows key ids only.
func (r *Keyring) String() string {
	return fmt.Sprintf("Keyring(current %s, %d keys)", r.current.id, len(r.byID))
}

// GoString shows key ids only.
func (r *Keyring) GoString() string { return r.String() }

// LogValue shows key ids only.
func (r *Keyring) LogValue() slog.Value {
	return slog.GroupValue(slog.String("current", r.current.id), slog.Any("keys", r.IDs()))
}
