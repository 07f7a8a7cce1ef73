// Package ids makes the random identifiers sluice hands out: execution, run,
// task, account and request ids, lease tokens and the names of scratch files
// and schemas.
//
// An identifier is a fixed prefix followed by random bytes from crypto/rand,
// written as lowercase hexadecimal: the alphabet after the prefix is [0-9a-f],
// two characters a byte, so a Kind of n bytes carries 8n bits of entropy in 2n
// characters. Most kinds draw 96 bits: a billion of them hold a repeat with a
// chance of about 6 in 10^12. Each format in use is one named Kind in
// kinds.go. Identifiers are stored in databases and files and pinned by tests
// and docs, so a kind's format never changes: a new format is a new kind.
//
// Identifiers are not secrets: they are drawn so that two never meet by
// chance, and the longer ones so that nobody reaches another's work by
// guessing, but they are logged, returned and put in URLs. A secret has rules
// of its own (encoding, checksum, redaction, rotation) and is made where
// those rules live, not here: API keys (internal/policy/apikey.go), vault
// nonces and master keys (internal/vault) and key files
// (internal/config/keyfile.go).
//
// The protocol codecs make their own message ids and UUIDs
// (protocol/session.NewID, protocol/e2a.NewUUID, the A2A task ids of
// protocol/e2a): they may import only the standard library. The PostgreSQL
// queue's lease token is made by the database (gen_random_uuid).
//
// New has no error result. crypto/rand.Read never returns an error since Go
// 1.24: when the operating system's source fails it ends the process with a
// fatal error (not a panic, which a handler could recover from). That is the
// wanted behaviour: an id drawn from a failed source would repeat, and two
// executions under one id are worse than a process that stops.
package ids

import (
	"crypto/rand"
	"encoding/hex"
)

// Kind is one format of identifier: a fixed prefix, separator included, and
// how many random bytes follow it as lowercase hex. The kinds are the named
// ones of kinds.go; the zero Kind makes empty ids.
type Kind struct {
	prefix string
	bytes  int
}

// New returns a fresh identifier of kind k.
func New(k Kind) string {
	b := make([]byte, k.bytes)
	_, _ = rand.Read(b) // never fails: see the package doc
	return k.prefix + hex.EncodeToString(b)
}
