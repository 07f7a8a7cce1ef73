package postgres

import (
	"strings"
	"unicode/utf8"
)

// storable reports whether every s could be in a text column: valid UTF-8
// without NUL bytes. A lookup by a value that is not can match nothing, so it
// is answered without asking the database (which would refuse the value).
func storable(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return false
		}
	}
	return true
}
