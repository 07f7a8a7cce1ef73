package e2a

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Typed field readers shared by the envelope and response decoders. Each reads
// the value at the parser's position and names the field in its error.

func (p *parser) optString() (string, error) {
	switch p.peek() {
	case 'n':
		return "", p.null()
	case '"':
		return p.str()
	}
	return "", p.errAt(p.pos, "must be a string or null, got %s", p.kindAt())
}

func (p *parser) optBool() (bool, error) {
	switch p.peek() {
	case 'n':
		return false, p.null()
	case 't', 'f':
		return p.boolean()
	}
	return false, p.errAt(p.pos, "must be true or false, got %s", p.kindAt())
}

// optTime reads an RFC 3339 string or epoch seconds (read compatibility with the
// legacy AgentRequest's float timestamp), or null (nil).
func (p *parser) optTime() (*time.Time, error) {
	off := p.pos
	switch c := p.peek(); {
	case c == 'n':
		return nil, p.null()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		t, err := ParseTimestamp(s)
		if err != nil {
			e := err.(*Error)
			e.Offset = off
			return nil, e
		}
		return &t, nil
	case c == '-' || c >= '0' && c <= '9':
		text, _, err := p.numberText()
		if err != nil {
			return nil, err
		}
		t, ok := epochTime(text)
		if !ok {
			return nil, p.errAt(off, "epoch seconds %s are outside the years 1 to 9999", text)
		}
		return &t, nil
	}
	return nil, p.errAt(off, "must be an RFC 3339 string, epoch seconds or null, got %s", p.kindAt())
}

// trimmedString reads a string or null and trims it as the reference's
// _normalize_optional_wire_str does (Python's str.strip()): blank reads as "".
func (p *parser) trimmedString() (string, error) {
	s, err := p.optString()
	return trimSpace(s), err
}

// trimSpace trims what Python's str.strip() trims: Unicode white space and
// the separators U+001C to U+001F, which str.isspace() also counts.
func trimSpace(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
}

// id reads a JSON-RPC id: a string, a number or null.
func (p *parser) id() (ID, error) {
	switch c := p.peek(); {
	case c == 'n':
		return ID{}, p.null()
	case c == '"':
		s, err := p.str()
		return StringID(s), err
	case c == '-' || c >= '0' && c <= '9':
		text, _, err := p.numberText()
		if err != nil {
			return ID{}, err
		}
		if len(text) > 64 {
			return ID{}, p.errAt(p.pos, "number id is longer than 64 digits")
		}
		return ID{text: string(text), isNumber: true, set: true}, nil
	}
	return ID{}, p.errAt(p.pos, "must be a string, a number or null, got %s", p.kindAt())
}

// strList reads an array of strings, or null.
func (p *parser) strList() ([]string, error) {
	if p.peek() == 'n' {
		return nil, p.null()
	}
	if p.peek() != '[' {
		return nil, p.errAt(p.pos, "must be an array of strings, got %s", p.kindAt())
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.pos++
	var out []string
	if p.peek() == ']' {
		p.pos++
		return out, nil
	}
	for i := 0; ; i++ {
		s, err := p.str()
		if err != nil {
			return nil, underIndex(err, i)
		}
		out = append(out, s)
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return out, nil
		default:
			return nil, p.errAt(p.pos, "invalid JSON: expected ',' or ']'")
		}
	}
}

// stringMap reads an object whose values are strings, or null.
func (p *parser) stringMap() (map[string]string, error) {
	if p.peek() == 'n' {
		return nil, p.null()
	}
	var m map[string]string
	err := p.members(func(k []byte, _ int) error {
		s, err := p.str()
		if m == nil {
			m = map[string]string{}
		}
		m[string(k)] = s
		return err
	})
	return m, err
}

func unknownField(p *parser, key string, off int, known []string) error {
	e := p.errAt(off, "unknown field")
	e.Suggestions = didYouMean(key, known)
	return e
}

// provenance reads a Provenance; null reads as the default. at is where it
// is, for the paths of the keys it skips.
func (p *parser) provenance(at string) (Provenance, error) {
	pv := Provenance{SourceProtocol: SourceE2A}
	if p.peek() == 'n' {
		return pv, p.null()
	}
	err := p.members(func(k []byte, _ int) error {
		var err error
		switch string(k) {
		case "source_protocol":
			var sp string
			if sp, err = p.optString(); sp != "" { // "" and null read as the default
				pv.SourceProtocol = sp
			}
		case "converter":
			pv.Converter, err = p.optString()
		case "converted_at":
			pv.ConvertedAt, err = p.optTime()
		case "details":
			saved := p.exact
			p.exact = true // details records ids as they came: keep every number's digits
			pv.Details, err = p.objectOrNull()
			p.exact = saved
		default:
			return p.skipUnknown(at, k)
		}
		return err
	})
	return pv, err
}

// auth reads an Auth, or null. The bearer token's value never appears in an
// error: only its path does.
func (p *parser) auth() (*Auth, error) {
	if p.peek() == 'n' {
		return nil, p.null()
	}
	a := &Auth{}
	err := p.members(func(k []byte, _ int) error {
		var err error
		switch string(k) {
		case "method_id":
			a.MethodID, err = p.optString()
		case "bearer_token":
			a.BearerToken, err = p.optString()
		case "api_key_ref":
			a.APIKeyRef, err = p.optString()
		case "credential_ref":
			a.CredentialRef, err = p.optString()
		case "extra_headers":
			a.ExtraHeaders, err = p.stringMap()
		case "_meta":
			a.Meta, err = p.objectOrNull()
		default:
			return p.skipUnknown("auth", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// checkVersion accepts any 1.x protocol_version.
func checkVersion(v string) bool {
	major, _, _ := strings.Cut(v, ".")
	return major == "1"
}

func parseFloat(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
