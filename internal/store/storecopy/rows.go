package storecopy

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"time"
)

// kind is what a column holds, whatever each database calls it.
type kind int

const (
	kindText  kind = iota // TEXT / text
	kindBytes             // BLOB / bytea
	kindInt               // INTEGER / bigint, integer
	kindBool              // INTEGER 0 or 1 / boolean
	kindTime              // INTEGER microseconds since the epoch / timestamptz
)

// kindOf maps a PostgreSQL data_type to a kind.
func kindOf(dataType string) (kind, bool) {
	switch dataType {
	case "text", "character varying":
		return kindText, true
	case "bytea":
		return kindBytes, true
	case "bigint", "integer", "smallint":
		return kindInt, true
	case "boolean":
		return kindBool, true
	case "timestamp with time zone":
		return kindTime, true
	}
	return 0, false
}

// normal is a value in one form for both sides: nil, string, []byte, int64
// (ints and times, in microseconds) or bool.
func (k kind) normal(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch k {
	case kindText:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case kindBytes:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case kindInt:
		if n, ok := asInt(v); ok {
			return n, nil
		}
	case kindBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		default:
			if n, ok := asInt(v); ok && (n == 0 || n == 1) {
				return n == 1, nil
			}
		}
	case kindTime:
		switch x := v.(type) {
		case time.Time:
			return x.UnixMicro(), nil
		default:
			if n, ok := asInt(v); ok {
				return n, nil
			}
		}
	}
	return nil, fmt.Errorf("a %T where a %s was expected", v, k)
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}

func (k kind) String() string {
	return [...]string{"text", "byte string", "integer", "boolean", "time"}[k]
}

// toPostgres turns a SQLite value into what pgx writes to the target's
// column, with its size for batching.
func (k kind) toPostgres(v any) (any, int, error) {
	n, err := k.normal(v)
	if err != nil || n == nil {
		return nil, 8, err
	}
	switch x := n.(type) {
	case string:
		return x, len(x) + 8, nil
	case []byte:
		return x, len(x) + 8, nil
	case int64:
		if k == kindTime {
			return time.UnixMicro(x).UTC(), 8, nil
		}
		return x, 8, nil
	}
	return n, 8, nil
}

// encode appends a normal value's canonical bytes: a tag, then the value
// (length-prefixed where it has a length), so two rows encode alike exactly
// when their values are equal.
func encode(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0)
	case string:
		b = binary.AppendUvarint(append(b, 1), uint64(len(x)))
		return append(b, x...)
	case []byte:
		b = binary.AppendUvarint(append(b, 2), uint64(len(x)))
		return append(b, x...)
	case int64:
		return binary.BigEndian.AppendUint64(append(b, 3), uint64(x))
	case bool:
		if x {
			return append(b, 4, 1)
		}
		return append(b, 4, 0)
	}
	panic(fmt.Sprintf("storecopy: encode %T", v))
}

// compareKeys orders two keys of normal values as both databases order them
// (text and bytes byte-wise, integers by value).
func compareKeys(a, b []any) int {
	for i := range a {
		if c := compareValue(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

func compareValue(a, b any) int {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y)
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y)
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmp.Compare(boolInt(x), boolInt(y))
		}
	case nil:
		if b == nil {
			return 0
		}
		return -1
	}
	if b == nil {
		return 1
	}
	return cmp.Compare(fmt.Sprintf("%T", a), fmt.Sprintf("%T", b))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// keyText shows a key in a report.
func keyText(key []any) string {
	var b bytes.Buffer
	for i, v := range key {
		if i > 0 {
			b.WriteByte('/')
		}
		switch x := v.(type) {
		case []byte:
			fmt.Fprintf(&b, "%x", x)
		default:
			fmt.Fprint(&b, x)
		}
	}
	s := b.String()
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
