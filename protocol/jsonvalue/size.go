package jsonvalue

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Size is len(Append(nil, v)) without building it, and Append's error: a
// caller holding a large tree makes its buffer once at the size it will
// need instead of growing it (Go grows a large slice by a quarter at a time,
// so appending tens of megabytes allocated five times their size).
func Size(v any) (int, error) {
	var scratch [32]byte
	switch x := v.(type) {
	case nil:
		return 4, nil
	case bool:
		if x {
			return 4, nil
		}
		return 5, nil
	case string:
		return StringSize(x, true), nil
	case float64:
		b, ok := AppendFloat(scratch[:0], x, 64)
		if !ok {
			_, err := json.Marshal(x)
			return 0, err
		}
		return len(b), nil
	case int:
		return len(strconv.AppendInt(scratch[:0], int64(x), 10)), nil
	case int64:
		return len(strconv.AppendInt(scratch[:0], x, 10)), nil
	case map[string]any:
		if x == nil {
			return 4, nil
		}
		n := 2 + max(len(x)-1, 0) // braces and commas
		for k, e := range x {
			m, err := Size(e)
			if err != nil {
				return 0, err
			}
			n += StringSize(k, true) + 1 + m
		}
		return n, nil
	case []any:
		if x == nil {
			return 4, nil
		}
		n := 2 + max(len(x)-1, 0)
		for _, e := range x {
			m, err := Size(e)
			if err != nil {
				return 0, err
			}
			n += m
		}
		return n, nil
	}
	b, err := json.Marshal(v)
	return len(b), err
}

// StringSize is len(AppendString(nil, s, escapeHTML)).
func StringSize(s string, escapeHTML bool) int {
	n := 2
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			switch {
			case b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || b != '<' && b != '>' && b != '&'):
				n++
			case b == '\\' || b == '"' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1, c == '\u2028', c == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
