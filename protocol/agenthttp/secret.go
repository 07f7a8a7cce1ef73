package agenthttp

import (
	"encoding/json"
	"errors"
	"log/slog"
)

// Secret is a credential value of a registry entry: a plain value as given
// at registration, or a reference to a vault entry. A plain value never
// prints (String, GoString, LogValue) and cannot be marshalled: the
// registry moves it into the vault and keeps the reference (RESOLUTIONS:
// never stored in clear).
type Secret struct {
	plain string
	ref   string
}

// PlainSecret wraps a value given in clear.
func PlainSecret(v string) Secret { return Secret{plain: v} }

// SecretRef is a reference to the vault entry id.
func SecretRef(id string) Secret { return Secret{ref: id} }

// IsZero reports whether s holds nothing.
func (s Secret) IsZero() bool { return s.plain == "" && s.ref == "" }

// IsRef reports whether s is a vault reference.
func (s Secret) IsRef() bool { return s.ref != "" }

// Ref is the vault entry id ("" for a plain value).
func (s Secret) Ref() string { return s.ref }

// Reveal is the plain value ("" for a reference). Only the registry calls
// it, to put the value into the vault.
func (s Secret) Reveal() string { return s.plain }

// String shows the reference or "[REDACTED]", never a value.
func (s Secret) String() string {
	switch {
	case s.ref != "":
		return "credentialRef(" + s.ref + ")"
	case s.plain != "":
		return "[REDACTED]"
	}
	return "(none)"
}

// GoString is String, for %#v.
func (s Secret) GoString() string { return s.String() }

// LogValue is String.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// ErrPlainSecret is the error for encoding an entry that still holds a
// secret in clear.
var ErrPlainSecret = errors.New("agenthttp: a secret value is in clear; only credentialRefs are written")

type credentialRef struct {
	CredentialRef struct {
		ID string `json:"id"`
	} `json:"credentialRef"`
}

// MarshalJSON writes {"credentialRef":{"id":...}}; a plain value is
// ErrPlainSecret.
func (s Secret) MarshalJSON() ([]byte, error) {
	if s.ref == "" {
		if s.plain == "" {
			return []byte("null"), nil
		}
		return nil, ErrPlainSecret
	}
	var r credentialRef
	r.CredentialRef.ID = s.ref
	return json.Marshal(r)
}

// MaxSecretBytes bounds a plain secret value (a header value).
const MaxSecretBytes = 8 << 10

// MaxRefBytes bounds a credentialRef id (the vault's id bound).
const MaxRefBytes = 128

// checkSecret checks s at path; messages never show a plain value.
func checkSecret(what, path string, s Secret) error {
	if s.ref != "" {
		return CheckRefID(what, join(path, "credentialRef.id"), s.ref)
	}
	v := s.plain
	switch {
	case v == "":
		return errorf(what, path, 0, "is required: a value or {\"credentialRef\": {\"id\": ...}}")
	case len(v) > MaxSecretBytes:
		return errorf(what, path, 0, "is %d bytes, over the limit of %d", len(v), MaxSecretBytes)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return errorf(what, path, 0, "holds a control character at byte %d (header values cannot)", i)
		}
	}
	return nil
}

// CheckRefID checks a vault reference id: 1 to MaxRefBytes of letters,
// digits and . _ : -, starting with a letter or digit (the vault's rule).
func CheckRefID(what, path, id string) error {
	if id == "" || len(id) > MaxRefBytes {
		return errorf(what, path, 0, "must be 1 to %d characters", MaxRefBytes)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == ':' || c == '-'):
		default:
			return errorf(what, path, 0, "holds %q at byte %d; use letters, digits and . _ : - (starting with a letter or digit)", rune(c), i)
		}
	}
	return nil
}

// decodeSecret reads a string (plain) or {"credentialRef": {"id": ...}}.
func (d decoder) secret(m member, path string) (Secret, error) {
	switch kindOf(m.raw) {
	case "a string":
		v, err := d.str(m, path)
		if err != nil {
			return Secret{}, err
		}
		if err := checkSecret(d.what, path, PlainSecret(v)); err != nil {
			err.(*Error).Offset = m.off
			return Secret{}, err
		}
		return PlainSecret(v), nil
	case "an object":
		outer, err := d.object(m.raw, path, m.off)
		if err != nil {
			return Secret{}, err
		}
		if len(outer) != 1 || outer[0].key != "credentialRef" {
			for _, o := range outer {
				if o.key != "credentialRef" {
					return Secret{}, d.unknown(o, path, "credentialRef")
				}
			}
			return Secret{}, errorf(d.what, path, m.off, "want {\"credentialRef\": {\"id\": ...}}")
		}
		refPath := join(path, "credentialRef")
		inner, err := d.object(outer[0].raw, refPath, outer[0].off)
		if err != nil {
			return Secret{}, err
		}
		var id string
		for _, in := range inner {
			if in.key != "id" {
				return Secret{}, d.unknown(in, refPath, "id")
			}
			if id, err = d.str(in, join(refPath, "id")); err != nil {
				return Secret{}, err
			}
			if err := CheckRefID(d.what, join(refPath, "id"), id); err != nil {
				err.(*Error).Offset = in.off
				return Secret{}, err
			}
		}
		if id == "" {
			return Secret{}, errorf(d.what, join(refPath, "id"), outer[0].off, "is missing")
		}
		return SecretRef(id), nil
	}
	return Secret{}, errorf(d.what, path, m.off, "want a string or {\"credentialRef\": {\"id\": ...}}, got %s", kindOf(m.raw))
}
