package e2a

import (
	"fmt"
	"math"
)

// FileRefsOf reads an attachment list (params.files or params.attachments) as
// file references. Each element must be an object with a non-empty string uri;
// name and mime_type are strings or null, size a non-negative integer or null,
// _meta an object or null. Other keys are allowed (params is open to
// extension) and ignored here. at names the list in errors.
func FileRefsOf(v any, at string) ([]FileRef, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, &Error{Path: at, Message: "must be an array of file references"}
	}
	out := make([]FileRef, 0, len(list))
	for i, el := range list {
		ep := fmt.Sprintf("%s[%d]", at, i)
		f, err := FileRefOf(el, ep)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// FileRefOf reads one file reference; see FileRefsOf.
func FileRefOf(v any, at string) (FileRef, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return FileRef{}, &Error{Path: at, Message: "must be a file reference object with a uri"}
	}
	var f FileRef
	str := func(key string) (string, error) {
		switch s := m[key].(type) {
		case nil:
			return "", nil
		case string:
			return s, nil
		}
		return "", &Error{Path: at + "." + key, Message: "must be a string or null"}
	}
	var err error
	if f.URI, err = str("uri"); err != nil {
		return f, err
	}
	if f.URI == "" {
		return f, &Error{Path: at + ".uri", Message: "is required"}
	}
	if f.Name, err = str("name"); err != nil {
		return f, err
	}
	if f.MimeType, err = str("mime_type"); err != nil {
		return f, err
	}
	switch s := m["size"].(type) {
	case nil:
	case float64:
		if s < 0 || s != math.Trunc(s) || s >= maxExactInt {
			return f, &Error{Path: at + ".size", Message: "must be a non-negative integer"}
		}
		n := int64(s)
		f.Size = &n
	default:
		return f, &Error{Path: at + ".size", Message: "must be a non-negative integer or null"}
	}
	switch meta := m["_meta"].(type) {
	case nil:
	case map[string]any:
		if len(meta) > 0 {
			f.Meta = meta
		}
	default:
		return f, &Error{Path: at + "._meta", Message: "must be an object"}
	}
	return f, nil
}

// Value returns f as a plain JSON object with the reference's keys (an
// element for params.files).
func (f FileRef) Value() map[string]any {
	m := map[string]any{"uri": f.URI, "name": nilIfEmpty(f.Name), "mime_type": nilIfEmpty(f.MimeType), "size": nil, "_meta": orEmpty(f.Meta)}
	if f.Size != nil {
		m["size"] = float64(*f.Size)
	}
	return m
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
