package a2e

import (
	"encoding/json"
	"errors"
	"fmt"
)

// This file reads JSON objects member by member, in document order and with
// duplicate keys visible. encoding/json's map decoding would hide both: it keeps
// the last of two equal keys (a classic way to smuggle a second value past a
// checker that reads the first) and loses the order we name keys in messages.

// member is one key and its raw value. Value aliases the scanned input.
type member struct {
	key   string
	value []byte
}

// syntaxError describes why data is not one JSON value, with the byte offset
// encoding/json reports.
func syntaxError(data []byte) string {
	var v json.RawMessage
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	}
	if err != nil {
		return "invalid JSON: " + err.Error()
	}
	return ""
}

// jsonKind names the JSON type of a valid raw value by its first byte.
func jsonKind(raw []byte) string {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// members splits a JSON object that is already known to be valid JSON into its
// members. It checks every index it uses, so malformed input gives an error,
// never a panic.
func members(data []byte) ([]member, error) {
	data = trimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf("expected an object, got %s", jsonKind(data))
	}
	var out []member
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == '}' {
		return out, nil
	}
	for i < len(data) {
		if data[i] != '"' {
			return nil, errors.New("malformed object: expected a key")
		}
		end, err := skipString(data, i)
		if err != nil {
			return nil, err
		}
		key, err := unquote(data[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, errors.New("malformed object: expected ':'")
		}
		i = skipSpace(data, i+1)
		vend, err := skipValue(data, i)
		if err != nil {
			return nil, err
		}
		out = append(out, member{key: key, value: data[i:vend]})
		i = skipSpace(data, vend)
		if i >= len(data) {
			break
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return out, nil
		default:
			return nil, errors.New("malformed object: expected ',' or '}'")
		}
	}
	return nil, errors.New("malformed object: unexpected end")
}

// elements splits a valid JSON array into its raw elements.
func elements(data []byte) ([][]byte, error) {
	data = trimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return nil, fmt.Errorf("expected an array, got %s", jsonKind(data))
	}
	var out [][]byte
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == ']' {
		return out, nil
	}
	for i < len(data) {
		end, err := skipValue(data, i)
		if err != nil {
			return nil, err
		}
		out = append(out, data[i:end])
		i = skipSpace(data, end)
		if i >= len(data) {
			break
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return out, nil
		default:
			return nil, errors.New("malformed array: expected ',' or ']'")
		}
	}
	return nil, errors.New("malformed array: unexpected end")
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i] == '"'.
func skipString(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errors.New("malformed JSON: unterminated string")
}

// skipValue returns the index just past the value starting at data[i]. Nesting is
// tracked with a counter, not recursion, so deep input cannot exhaust the stack.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errors.New("malformed JSON: expected a value")
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("malformed JSON: unclosed container")
	}
	j := i
	for j < len(data) && !isSpace(data[j]) && data[j] != ',' && data[j] != '}' && data[j] != ']' {
		j++
	}
	if j == i {
		return 0, errors.New("malformed JSON: expected a value")
	}
	return j, nil
}

// unquote decodes a raw JSON string; the common case without escapes is a plain copy.
func unquote(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		plain := true
		for _, c := range raw[1 : len(raw)-1] {
			if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
				plain = false
				break
			}
		}
		if plain {
			return string(raw[1 : len(raw)-1]), nil
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// rawString returns the string held by raw, and false when raw is not a JSON string.
func rawString(raw []byte) (string, bool) {
	raw = trimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	s, err := unquote(raw)
	return s, err == nil
}

// memberNames lists the keys of ms in order.
func memberNames(ms []member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.key
	}
	return out
}
