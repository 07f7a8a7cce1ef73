package vault

import (
	"encoding/json"
	"log/slog"
)

// Plaintext is a secret value on its way into the vault. The text sits behind a
// pointer, so a Plaintext nested in an unexported field of any struct prints
// as an address; String, GoString, LogValue and MarshalJSON print Redaction.
// UnmarshalJSON reads a JSON string, so an admin request decodes straight into
// an Entry.
type Plaintext struct{ p *string }

// NewPlaintext wraps s.
func NewPlaintext(s string) Plaintext { return Plaintext{p: &s} }

// Reveal is the value. Call it only to seal or send the value.
func (v Plaintext) Reveal() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

// Len is the value's length in bytes.
func (v Plaintext) Len() int { return len(v.Reveal()) }

// String prints Redaction.
func (v Plaintext) String() string { return Redaction }

// GoString prints Redaction.
func (v Plaintext) GoString() string { return Redaction }

// LogValue prints Redaction.
func (v Plaintext) LogValue() slog.Value { return slog.StringValue(Redaction) }

// MarshalJSON prints Redaction.
func (v Plaintext) MarshalJSON() ([]byte, error) { return json.Marshal(Redaction) }

// UnmarshalJSON reads a JSON string.
func (v *Plaintext) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*v = NewPlaintext(s)
	return nil
}
