package config

import (
	"encoding/json"
	"log/slog"
)

// Secret is a secret text: the admin key, a credential on its way into the
// vault. The text sits behind a pointer so a Secret nested in an unexported
// field prints as an address; String, GoString, LogValue and MarshalJSON show
// only whether it is set. UnmarshalJSON reads a JSON string.
type Secret struct{ p *string }

// NewSecret wraps s.
func NewSecret(s string) Secret { return Secret{p: &s} }

// Reveal is the secret; "" when unset.
func (s Secret) Reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// Len is the secret's length in bytes.
func (s Secret) Len() int { return len(s.Reveal()) }

// String says whether the secret is set, never what it is.
func (s Secret) String() string {
	if s.Reveal() == "" {
		return "[unset]"
	}
	return "[REDACTED]"
}

// GoString is String.
func (s Secret) GoString() string { return s.String() }

// LogValue is String.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON is String.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a JSON string.
func (s *Secret) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return err
	}
	*s = NewSecret(text)
	return nil
}
