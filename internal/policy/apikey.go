package policy

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"hash/crc32"
	"log/slog"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// API key format (docs/configuration.md, "API keys"):
//
//	slk_<id>_<secret><check>
//
// id is 8 random bytes and secret 32 random bytes (256 bits), both in
// lower-case base32 without padding (13 and 52 characters); check is the
// CRC-32 (IEEE) of everything before it, as 7 base32 characters. A key is 77
// characters. The prefix makes keys recognisable to secret scanners and to
// people; the id names a key without its secret (logs, the admin API, the
// store's primary key); the check lets a typo or a truncated paste be refused
// without a store lookup.
const (
	KeyPrefix = "slk_"
	KeyLen    = len(KeyPrefix) + keyIDLen + 1 + keySecretLen + keyCheckLen

	keyIDBytes     = 8
	keySecretBytes = 32
	keyIDLen       = 13
	keySecretLen   = 52
	keyCheckLen    = 7
	keySepAt       = len(KeyPrefix) + keyIDLen
	keyCheckAt     = KeyLen - keyCheckLen
)

var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Key is an API key in clear: what a caller presents and what is shown once
// when it is issued. The text sits behind a pointer, and String, GoString,
// LogValue and MarshalJSON show the public id only, so a Key in a log line or
// an error names the key without giving it away.
type Key struct {
	id   string
	text *string
}

// ID is the key's public id (13 characters).
func (k Key) ID() string { return k.id }

// Reveal is the whole key. Call it only to show a new key to its owner once.
func (k Key) Reveal() string {
	if k.text == nil {
		return ""
	}
	return *k.text
}

// String names the key by its id.
func (k Key) String() string { return KeyPrefix + k.id + "_…" }

// GoString names the key by its id.
func (k Key) GoString() string { return k.String() }

// LogValue names the key by its id.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.String()) }

// MarshalJSON names the key by its id.
func (k Key) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// newKey draws a fresh key.
func newKey() (Key, error) {
	var b [keyIDBytes + keySecretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Key{}, err
	}
	id := keyEncoding.EncodeToString(b[:keyIDBytes])
	body := KeyPrefix + id + "_" + keyEncoding.EncodeToString(b[keyIDBytes:])
	text := body + keyCheck(body)
	return Key{id: id, text: &text}, nil
}

func keyCheck(body string) string {
	sum := crc32.ChecksumIEEE([]byte(body))
	return keyEncoding.EncodeToString([]byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
}

// errInvalidKey is the one answer to every bad key: malformed, unknown or
// wrong. Saying which part was wrong would help a guesser.
func errInvalidKey() *fault.Error {
	return fault.Typed(fault.Unauthenticated, fault.PermissionError, "invalid API key").
		WithSuggestions("Check that the whole key was sent; keys look like slk_<id>_<secret> and are shown only once when created")
}

// ParseKey checks the form of text (length, prefix, alphabet, check) without
// a store lookup. Every failure is the same Unauthenticated error, which never
// quotes the text.
func ParseKey(text string) (Key, error) {
	if len(text) != KeyLen || !strings.HasPrefix(text, KeyPrefix) || text[keySepAt] != '_' {
		return Key{}, errInvalidKey()
	}
	for i := len(KeyPrefix); i < KeyLen; i++ {
		if i == keySepAt {
			continue
		}
		if c := text[i]; !('a' <= c && c <= 'z' || '2' <= c && c <= '7') {
			return Key{}, errInvalidKey()
		}
	}
	if keyCheck(text[:keyCheckAt]) != text[keyCheckAt:] {
		return Key{}, errInvalidKey()
	}
	t := strings.Clone(text) // do not pin a large request buffer
	return Key{id: t[len(KeyPrefix):keySepAt], text: &t}, nil
}
