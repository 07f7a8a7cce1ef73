package sqlstore

import (
	"strconv"
	"strings"
	"sync"
)

// numbered caches Numbered's rewrites: the queries are the code's own, a
// fixed set, so the cache does not grow without bound.
var numbered sync.Map // query string -> string

// Numbered rewrites a query's ? placeholders as $1, $2, ... for drivers
// that number them (pgx). A ? inside a quoted string or identifier stays.
func Numbered(query string) string {
	if v, ok := numbered.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	numbered.Store(query, out)
	return out
}
