package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Key hashes parts with SHA-256 over a canonical JSON encoding: the parts as one
// JSON array, object keys sorted (encoding/json sorts map keys), no HTML
// escaping. Equal JSON values give equal keys whatever the map order. A part
// JSON cannot encode falls back to its Go syntax, which is still deterministic.
//
// Callers must not pass secrets: a hash of a low-entropy secret can be guessed.
func Key(parts ...any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if parts == nil {
		parts = []any{}
	}
	if err := enc.Encode(parts); err != nil {
		b.Reset()
		fmt.Fprintf(&b, "%#v", parts)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}
