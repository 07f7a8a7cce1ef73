package e2a

import (
	"strconv"
	"strings"
	"time"
)

// Typed field readers shared by the envelope and response decoders. Each reads
// the value at the parser's position and names the field in its error.

func (p *parser) optString(at *path) (string, error) {
	switch p.peek() {
	case 'n':
		return "", p.null(at)
	case '"':
		return p.str(at)
	}
	return "", p.errAt(at, p.pos, "must be a string or null, got %s", p.kindAt())
}

func (p *parser) optBool(at *path) (bool, error) {
	switch p.peek() {
	case 'n':
		return false, p.null(at)
	case 't', 'f':
		return p.boolean(at)
	}
	return false, p.errAt(at, p.pos, "must be true or false, got %s", p.kindAt())
}

// optTime reads an RFC 3339 string or epoch seconds (read compatibility with the
// legacy AgentRequest's float timestamp), or null.
func (p *parser) optTime(at *path) (time.Time, error) {
	off := p.pos
	switch c := p.peek(); {
	case c == 'n':
		return time.Time{}, p.null(at)
	case c == '"':
		s, err := p.str(at)
		if err != nil {
			return time.Time{}, err
		}
		t, err := ParseTimestamp(s)
		if err != nil {
			e := err.(*Error)
			e.Path, e.Offset = at.String(), off
			return time.Time{}, e
		}
		return t, nil
	case c == '-' || c >= '0' && c <= '9':
		text, _, err := p.numberText(at)
		if err != nil {
			return time.Time{}, err
		}
		t, ok := epochTime(text)
		if !ok {
			return time.Time{}, p.errAt(at, off, "epoch seconds %s are outside the years 1 to 9999", text)
		}
		return t, nil
	}
	return time.Time{}, p.errAt(at, off, "must be an RFC 3339 string, epoch seconds or null, got %s", p.kindAt())
}

// id reads a JSON-RPC id: a string, a number or null.
func (p *parser) id(at *path) (ID, error) {
	switch c := p.peek(); {
	case c == 'n':
		return ID{}, p.null(at)
	case c == '"':
		s, err := p.str(at)
		return StringID(s), err
	case c == '-' || c >= '0' && c <= '9':
		text, _, err := p.numberText(at)
		if err != nil {
			return ID{}, err
		}
		if len(text) > 64 {
			return ID{}, p.errAt(at, p.pos, "number id is longer than 64 digits")
		}
		return ID{text: string(text), isNumber: true, set: true}, nil
	}
	return ID{}, p.errAt(at, p.pos, "must be a string, a number or null, got %s", p.kindAt())
}

// strList reads an array of strings, or null.
func (p *parser) strList(at *path) ([]string, error) {
	if p.peek() == 'n' {
		return nil, p.null(at)
	}
	if p.peek() != '[' {
		return nil, p.errAt(at, p.pos, "must be an array of strings, got %s", p.kindAt())
	}
	if err := p.enter(at); err != nil {
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
		ep := at.elem(i)
		s, err := p.str(&ep)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return out, nil
		default:
			return nil, p.errAt(at, p.pos, "invalid JSON: expected ',' or ']'")
		}
	}
}

// stringMap reads an object whose values are strings, or null.
func (p *parser) stringMap(at *path) (map[string]string, error) {
	if p.peek() == 'n' {
		return nil, p.null(at)
	}
	var m map[string]string
	err := p.members(at, func(key string, _ int) error {
		kp := at.field(key)
		s, err := p.str(&kp)
		if m == nil {
			m = map[string]string{}
		}
		m[key] = s
		return err
	})
	return m, err
}

func unknownField(p *parser, at *path, key string, off int, known []string) error {
	kp := at.field(key)
	e := p.errAt(&kp, off, "unknown field")
	e.Suggestions = didYouMean(key, known)
	return e
}

var provenanceFields = []string{"source_protocol", "converter", "converted_at", "details"}

// provenance reads a Provenance; null reads as the default.
func (p *parser) provenance(at *path) (Provenance, error) {
	pv := Provenance{SourceProtocol: SourceE2A}
	if p.peek() == 'n' {
		return pv, p.null(at)
	}
	err := p.members(at, func(key string, off int) error {
		fp := at.field(key)
		var err error
		switch key {
		case "source_protocol":
			var sp string
			if sp, err = p.optString(&fp); sp != "" { // "" and null read as the default
				pv.SourceProtocol = sp
			}
		case "converter":
			pv.Converter, err = p.optString(&fp)
		case "converted_at":
			pv.ConvertedAt, err = p.optTime(&fp)
		case "details":
			pv.Details, err = p.objectOrNull(&fp)
		default:
			return unknownField(p, at, key, off, provenanceFields)
		}
		return err
	})
	return pv, err
}

var authFields = []string{"method_id", "bearer_token", "api_key_ref", "credential_ref", "extra_headers", "_meta"}

// auth reads an Auth, or null. The bearer token's value never appears in an
// error: only its path does.
func (p *parser) auth(at *path) (*Auth, error) {
	if p.peek() == 'n' {
		return nil, p.null(at)
	}
	a := &Auth{}
	err := p.members(at, func(key string, off int) error {
		fp := at.field(key)
		var err error
		switch key {
		case "method_id":
			a.MethodID, err = p.optString(&fp)
		case "bearer_token":
			a.BearerToken, err = p.optString(&fp)
		case "api_key_ref":
			a.APIKeyRef, err = p.optString(&fp)
		case "credential_ref":
			a.CredentialRef, err = p.optString(&fp)
		case "extra_headers":
			a.ExtraHeaders, err = p.stringMap(&fp)
		case "_meta":
			a.Meta, err = p.objectOrNull(&fp)
		default:
			return unknownField(p, at, key, off, authFields)
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
