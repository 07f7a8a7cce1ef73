package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
)

// MasterKeyLen is the length of a master key: AES-256.
const MasterKeyLen = 32

// keyIDDomain separates the key id hash from any other use of the key.
const keyIDDomain = "sluice vault master key id v1\x00"

// MasterKey is one AES-256 key of the keyring and its public id. The key bytes
// sit behind a pointer so that even a MasterKey in an unexported field of some
// other struct prints as an address, never as key material; String, GoString,
// LogValue and MarshalJSON show the id only.
type MasterKey struct {
	id   string
	aead cipher.AEAD
	raw  *[MasterKeyLen]byte
}

// NewMasterKey makes a master key from exactly 32 bytes (copied).
//
// Its id is the first 8 bytes of SHA-256("sluice vault master key id v1\x00" ||
// key) in hex (16 characters): stable for the same key on every machine,
// telling nothing about the key, and short enough to store beside each record.
func NewMasterKey(b []byte) (MasterKey, error) {
	if len(b) != MasterKeyLen {
		return MasterKey{}, fmt.Errorf("a master key is %d bytes, not %d", MasterKeyLen, len(b))
	}
	raw := new([MasterKeyLen]byte)
	copy(raw[:], b)
	block, err := aes.NewCipher(raw[:])
	if err != nil {
		return MasterKey{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return MasterKey{}, err
	}
	sum := sha256.Sum256(append([]byte(keyIDDomain), raw[:]...))
	return MasterKey{id: hex.EncodeToString(sum[:8]), aead: aead, raw: raw}, nil
}

// ParseMasterKey decodes a master key given as base64 (standard or URL
// alphabet, padded or not) or hex of 32 bytes. Errors never quote the text.
func ParseMasterKey(text string) (MasterKey, error) {
	b, err := config.DecodeKey(text)
	if err != nil {
		return MasterKey{}, fault.New(fault.Invalid, "master key %v", err)
	}
	k, err := NewMasterKey(b)
	if err != nil {
		return MasterKey{}, fault.New(fault.Invalid, "%v", err)
	}
	return k, nil
}

// GenerateMasterKey makes a new random master key.
func GenerateMasterKey() (MasterKey, error) {
	b := make([]byte, MasterKeyLen)
	if _, err := rand.Read(b); err != nil {
		return MasterKey{}, err
	}
	return NewMasterKey(b)
}

// ID is the key's public id.
func (k MasterKey) ID() string { return k.id }

// Export is the key as standard base64, the form SLUICE_MASTER_KEY and
// master.key take. It is the only way to see the key: show it once, to an
// operator who asked.
func (k MasterKey) Export() string {
	if k.raw == nil {
		return ""
	}
	return config.EncodeKey(k.raw[:])
}

// String shows the id only.
func (k MasterKey) String() string { return "MasterKey(" + k.id + ")" }

// GoString shows the id only, also for %#v.
func (k MasterKey) GoString() string { return k.String() }

// LogValue shows the id only.
func (k MasterKey) LogValue() slog.Value { return slog.StringValue(k.String()) }

// MarshalJSON shows the id only.
func (k MasterKey) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf("%q", k.String())), nil }
