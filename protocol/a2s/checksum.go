package a2s

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// The checksum of a document is "sha256:" and the hex SHA-256 of the RFC 8785
// canonical JSON of the document as parsed (before any dialect is folded),
// with the top-level checksum field removed (RESOLUTIONS). YAML and JSON
// forms of the same document have the same checksum.

// ChecksumPrefix starts every checksum sluice writes.
const ChecksumPrefix = "sha256:"

// ErrChecksumMismatch: the document does not hash to the checksum it gives.
var ErrChecksumMismatch = errors.New("checksum mismatch")

// ErrChecksumFormat: a checksum that is not sha256:<64 hex> or bare hex.
var ErrChecksumFormat = errors.New("checksum is not sha256:<64 hex digits> or 64 bare hex digits")

// ErrNoChecksum: verifying a document that gives no checksum.
var ErrNoChecksum = errors.New("the document has no checksum")

// ComputeChecksum returns "sha256:<hex>" of tree without its checksum field.
func ComputeChecksum(tree *Node) (string, error) {
	body, err := Canonical(withoutChecksum(tree))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(body)
	return ChecksumPrefix + hex.EncodeToString(sum[:]), nil
}

// withoutChecksum returns the tree with its top-level checksum member left
// out (the tree itself is not changed).
func withoutChecksum(tree *Node) *Node {
	if tree == nil || tree.Kind != KindObject || tree.Member("checksum") == nil {
		return tree
	}
	cp := *tree
	cp.Keys = make([]*Member, 0, len(tree.Keys)-1)
	for _, m := range tree.Keys {
		if m.Name != "checksum" {
			cp.Keys = append(cp.Keys, m)
		}
	}
	return &cp
}

// ParseChecksum returns the lower-case hex digest of a checksum written as
// sha256:<hex> or bare hex (either case).
func ParseChecksum(s string) (string, error) {
	h := strings.TrimSpace(s)
	if p, ok := strings.CutPrefix(strings.ToLower(h), ChecksumPrefix); ok {
		h = p
	} else if strings.Contains(h, ":") {
		return "", fmt.Errorf("%w: algorithm %q is not sha256", ErrChecksumFormat, h[:strings.IndexByte(h, ':')])
	}
	h = strings.ToLower(h)
	if len(h) != 2*sha256.Size {
		return "", ErrChecksumFormat
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", ErrChecksumFormat
	}
	return h, nil
}

// VerifyChecksum checks that tree hashes to want (sha256:<hex> or bare hex).
func VerifyChecksum(tree *Node, want string) error {
	w, err := ParseChecksum(want)
	if err != nil {
		return err
	}
	got, err := ComputeChecksum(tree)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(got[len(ChecksumPrefix):]), []byte(w)) != 1 {
		return fmt.Errorf("%w: the document hashes to %s", ErrChecksumMismatch, got)
	}
	return nil
}

// ComputeChecksum returns the document's checksum as computed from its content.
func (d *Document) ComputeChecksum() (string, error) { return ComputeChecksum(d.Tree) }

// Verify checks the checksum the document gives against its content.
func (d *Document) Verify() error {
	if !d.Checksum.Set() {
		return ErrNoChecksum
	}
	return VerifyChecksum(d.Tree, d.Checksum.Value)
}
