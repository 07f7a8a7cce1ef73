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

// additionalData binds a ciphertext to its credential id and type: opened under
// another id (a record copied to another row) or with another type (a bearer
// token turned into a raw header value), authentication fails. Each part is
// length-prefixed so that no two (id, type) pairs give the same bytes.
func additionalData(id, typ string) []byte {
	b := make([]byte, 0, len(aadVersion)+len(id)+len(typ)+4)
	b = append(b, aadVersion...)
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(len(typ)))
	b = append(b, typ...)
	return b
}

// seal encrypts value for (id, typ) under k with a fresh random 96-bit nonce.
// Random nonces are safe for up to 2^32 sealings per key, far beyond what a
// vault does between rotations.
func seal(k MasterKey, id, typ string, value []byte) (nonce, ciphertext []byte, err error) {
	nonce = make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	return nonce, k.aead.Seal(nil, nonce, value, additionalData(id, typ)), nil
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
	return k.aead.Open(nil, rec.Nonce, rec.Ciphertext, additionalData(id, rec.Type))
}
