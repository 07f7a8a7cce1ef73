package vault

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
)

// aadVersion starts the additional data, so a later format cannot be confused
// with this one.
const aadVersion = "sluice vault record v1"

// errKeyUnknown means a record names a master key the keyring does not hold.
var errKeyUnknown = errors.New("the record's master key is not in the keyring")

// additionalData binds a ciphertext to its credential id, type and hosts:
// opened under another id (a record copied to another row), with another type
// (a bearer token turned into a raw header value) or with other hosts (a
// binding widened or removed by a write to the database alone),
// authentication fails. Each part is length-prefixed so that no two
// (id, type, hosts) give the same bytes; an unbound record's data is that of
// the records of earlier versions, which therefore open as they are.
func additionalData(id, typ string, hosts []string) []byte {
	b := make([]byte, 0, len(aadVersion)+len(id)+len(typ)+4)
	b = append(b, aadVersion...)
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(len(typ)))
	b = append(b, typ...)
	if len(hosts) > 0 {
		b = append(b, "hosts"...)
		b = binary.AppendUvarint(b, uint64(len(hosts)))
		for _, h := range hosts {
			b = binary.AppendUvarint(b, uint64(len(h)))
			b = append(b, h...)
		}
	}
	return b
}

// seal encrypts value for (id, typ) under k with a fresh random 96-bit nonce.
// Random nonces are safe for up to 2^32 sealings per key, far beyond what a
// vault does between rotations.
func seal(k MasterKey, id, typ string, hosts []string, value []byte) (nonce, ciphertext []byte, err error) {
	nonce = make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	return nonce, k.aead.Seal(nil, nonce, value, additionalData(id, typ, hosts)), nil
}

// open decrypts rec as the credential id, with the key rec names.
func open(r *Keyring, id string, rec Record) ([]byte, error) {
	k, ok := r.key(rec.KeyID)
	if !ok {
		return nil, errKeyUnknown
	}
	if len(rec.Nonce) != k.aead.NonceSize() {
		return nil, errors.New("the record's nonce has the wrong length")
	}
	return k.aead.Open(nil, rec.Nonce, rec.Ciphertext, additionalData(id, rec.Type, rec.Hosts))
}
