// Package storekey is the rule for StoreData/LoadData keys, shared by the
// operations (which check literal keys at build time) and the storages (which
// check every key again before touching anything). It is its own package because
// the storages import internal/op and the operations cannot import them back.
package storekey

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of a key.
const (
	MaxKeyLength     = 512 // bytes
	MaxSegmentLength = 255 // bytes, a common file-name limit
	MaxDepth         = 16  // segments
)

// Check returns nil when key is a valid storage key, otherwise an error whose text
// says what is wrong (safe to show; keys are not secrets). A key is one or more
// segments separated by "/"; segments are non-empty, do not start with "." (which
// rules out "." and "..", hidden files and the storages' temporary files), and
// hold no NUL, backslash or control characters. A key never starts with "/".
func Check(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("the key is empty")
	case len(key) > MaxKeyLength:
		return fmt.Errorf("the key is %d bytes long, over the limit of %d", len(key), MaxKeyLength)
	case !utf8.ValidString(key):
		return fmt.Errorf("the key is not valid UTF-8")
	case strings.HasPrefix(key, "/"):
		return fmt.Errorf("the key %q is absolute; keys are relative to the account's storage", key)
	}
	segs := strings.Split(key, "/")
	if len(segs) > MaxDepth {
		return fmt.Errorf("the key %q has %d segments, over the limit of %d", key, len(segs), MaxDepth)
	}
	for _, s := range segs {
		switch {
		case s == "":
			return fmt.Errorf("the key %q has an empty segment", key)
		case s == "..":
			return fmt.Errorf("the key %q has a \"..\" segment, which would leave the account's storage", key)
		case strings.HasPrefix(s, "."):
			return fmt.Errorf("the key %q has a segment starting with \".\"", key)
		case len(s) > MaxSegmentLength:
			return fmt.Errorf("the key %q has a segment over %d bytes", key, MaxSegmentLength)
		}
		for _, r := range s {
			if r == 0 || r == '\\' || r < 0x20 || r == 0x7f {
				return fmt.Errorf("the key %q holds a NUL, backslash or control character", key)
			}
		}
	}
	return nil
}
