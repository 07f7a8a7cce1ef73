package vault

import "github.com/sluicehq/sluice/internal/config"

// Plaintext is a secret value on its way into the vault: config.Secret, whose
// text sits behind a pointer and never prints (String, GoString, LogValue and
// MarshalJSON show "[REDACTED]"). It decodes from a JSON string, so an admin
// request decodes straight into an Entry.
type Plaintext = config.Secret

// NewPlaintext wraps s.
func NewPlaintext(s string) Plaintext { return config.NewSecret(s) }
