package policy

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"os"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
)

// Where the pepper comes from (docs/configuration.md, "API keys").
const (
	EnvKeyPepper  = "SLUICE_KEY_PEPPER"
	KeyPepperFile = "pepper.key"
	// A pepper is 32 to 64 bytes; a created one is 32.
	minPepperLen = 32
	maxPepperLen = 64
)

// Pepper is the server secret that keys are hashed with: a stolen copy of the
// key table alone does not let anyone check guesses. Changing it invalidates
// every issued key. The bytes sit behind a pointer and never print.
type Pepper struct{ b *[]byte }

// NewPepper makes a pepper of 32 to 64 bytes (copied).
func NewPepper(b []byte) (Pepper, error) {
	if len(b) < minPepperLen || len(b) > maxPepperLen {
		return Pepper{}, fault.New(fault.Invalid, "a key pepper is %d to %d bytes, not %d", minPepperLen, maxPepperLen, len(b))
	}
	c := append([]byte(nil), b...)
	return Pepper{b: &c}, nil
}

// LoadPepper reads the pepper from SLUICE_KEY_PEPPER or, when that is unset,
// from pepper.key in the data directory, created (mode 0600) on first start.
// Both hold base64 or hex; a file readable by group or others is refused.
func LoadPepper(dataDir string, lookupEnv func(string) (string, bool)) (Pepper, error) {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	k, err := config.LoadKey(config.KeySource{
		What: "key pepper", Env: EnvKeyPepper, Dir: dataDir, File: KeyPepperFile,
		MinLen: minPepperLen, MaxLen: maxPepperLen, GenLen: minPepperLen, LookupEnv: lookupEnv,
	})
	if err != nil {
		return Pepper{}, err
	}
	return NewPepper(k.Bytes)
}

// String never prints the pepper.
func (p Pepper) String() string { return "Pepper([REDACTED])" }

// GoString never prints the pepper.
func (p Pepper) GoString() string { return p.String() }

// LogValue never prints the pepper.
func (p Pepper) LogValue() slog.Value { return slog.StringValue(p.String()) }

// hash is HMAC-SHA-256 of the whole key under the pepper.
func (p Pepper) hash(text string) []byte {
	var key []byte
	if p.b != nil {
		key = *p.b
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(text))
	return m.Sum(nil)
}

// KeyRecord is what the store keeps of a key: never the key itself. Expiry and
// revocation are data here; VerifyKey reads them.
type KeyRecord struct {
	ID      string    `json:"id"`
	Account string    `json:"account"`
	Name    string    `json:"name,omitempty"`
	Hash    []byte    `json:"-"` // HMAC-SHA-256(pepper, key)
	Created time.Time `json:"created_at"`
	Expires time.Time `json:"expires_at,omitzero"` // zero: never
	Revoked time.Time `json:"revoked_at,omitzero"` // zero: not revoked
}

// KeySpec says what a new key is for.
type KeySpec struct {
	Account string
	Name    string    // an operator's label, e.g. "ci"
	Expires time.Time // zero: never
}

// IssueKey makes a new key for spec and the record to store. Show the key once
// (Key.Reveal) and keep only the record.
func IssueKey(p Pepper, spec KeySpec, now time.Time) (Key, KeyRecord, error) {
	if p.b == nil {
		return Key{}, KeyRecord{}, fault.New(fault.Internal, "no key pepper is configured")
	}
	if spec.Account == "" {
		return Key{}, KeyRecord{}, fault.New(fault.Invalid, "a key needs an account")
	}
	if !spec.Expires.IsZero() && !spec.Expires.After(now) {
		return Key{}, KeyRecord{}, fault.New(fault.Invalid, "a key's expiry must be in the future").WithDetail("field", "expires_at")
	}
	k, err := newKey()
	if err != nil {
		return Key{}, KeyRecord{}, fault.New(fault.Internal, "could not draw a random key").WithCause(err)
	}
	return k, KeyRecord{ID: k.id, Account: spec.Account, Name: spec.Name, Hash: p.hash(k.Reveal()),
		Created: now.UTC(), Expires: spec.Expires.UTC()}, nil
}

// KeyStatus is the verdict on a presented key.
type KeyStatus int

// The verdicts.
const (
	KeyInvalid KeyStatus = iota // unknown id or wrong secret
	KeyValid
	KeyExpired
	KeyRevoked
)

func (s KeyStatus) String() string {
	return [...]string{"invalid", "valid", "expired", "revoked"}[s]
}

// VerifyKey checks k against its stored record at now. The hash is compared in
// constant time and first: expiry and revocation are told only to a caller
// who holds the whole key.
func VerifyKey(p Pepper, k Key, rec KeyRecord, now time.Time) KeyStatus {
	if p.b == nil || k.text == nil {
		return KeyInvalid
	}
	match := hmac.Equal(p.hash(*k.text), rec.Hash)
	if !match || k.id != rec.ID {
		return KeyInvalid
	}
	switch {
	case !rec.Revoked.IsZero() && !now.Before(rec.Revoked):
		return KeyRevoked
	case !rec.Expires.IsZero() && !now.Before(rec.Expires):
		return KeyExpired
	}
	return KeyValid
}

// Err is the error for a verdict other than KeyValid (nil for KeyValid).
func (s KeyStatus) Err() error {
	switch s {
	case KeyValid:
		return nil
	case KeyExpired:
		return fault.Typed(fault.Unauthenticated, fault.PermissionError, "API key has expired").
			WithSuggestions("Ask an operator for a new key")
	case KeyRevoked:
		return fault.Typed(fault.Unauthenticated, fault.PermissionError, "API key has been revoked").
			WithSuggestions("Ask an operator for a new key")
	}
	return errInvalidKey()
}

// EqualSecrets compares two secrets (an admin key against the configured one)
// in time that depends on neither their contents nor their lengths.
func EqualSecrets(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1 && a != "" && b != ""
}
