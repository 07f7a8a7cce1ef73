package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// forms are the spellings of v an upstream may echo back, computed once per
// Redactor:
//
//   - v as it is (which covers "Bearer <v>" and "Basic base64(<v>)"'s v);
//   - base64 of v, standard and URL-safe alphabets, padded and not;
//   - base64 of v inside a longer encoded text (base64("Authorization: Bearer
//     <v>")), at each of the three byte alignments (embeddedCores);
//   - every base64 form as a URL query value (+, / and = percent-escaped);
//   - hex, lower and upper case;
//   - URL query and path escaping, with upper- and lower-case %XX;
//   - JSON string escaping: with and without HTML escaping, with "/" as "\/",
//     and with every non-ASCII character as \uXXXX (Python's default).
//
// Not covered: other encodings (gzip, base32, quoted-printable, base64 broken
// into lines), encodings of encodings, and a value split across strings.
func forms(v string) []string {
	b := []byte(v)
	out := []string{v}
	b64 := []string{
		base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
	}
	if len(b) >= MinEmbeddedLen {
		b64 = append(b64, embeddedCores(b)...)
	}
	out = append(out, b64...)
	for _, f := range b64 {
		if q := url.QueryEscape(f); q != f {
			out = append(out, q)
		}
	}
	out = append(out, hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)))
	for _, e := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		out = append(out, e, lowerPercent(e))
	}
	out = append(out, jsonForms(v)...)
	slices.Sort(out)
	return slices.Compact(out)
}

// embeddedCores are, for each byte alignment k of v in a longer text, the
// part of that text's base64 which is the same wherever v sits at an offset
// of k (mod 3): the 4-character groups made of v's bytes only. Each comes in
// the standard and the URL-safe alphabet. One or two bytes at either end of v
// share a group with their neighbours and are not matched.
func embeddedCores(v []byte) []string {
	var out []string
	for k := 0; k < 3; k++ {
		enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, k), v...))
		first := (k + 2) / 3     // first group that starts inside v
		last := (k + len(v)) / 3 // groups [first, last) lie wholly inside v
		if last <= first {
			continue
		}
		core := enc[4*first : 4*last]
		out = append(out, core, strings.NewReplacer("+", "-", "/", "_").Replace(core))
	}
	return out
}

// lowerPercent writes the hex digits of every %XX escape in lower case, as
// some encoders do.
func lowerPercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = toLowerASCII(b[i+1]), toLowerASCII(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func toLowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// jsonForms are v's spellings inside a JSON string, quotes left off.
func jsonForms(v string) []string {
	var out []string
	if j, err := json.Marshal(v); err == nil { // HTML-escaped: \u003c for <
		out = append(out, string(j[1:len(j)-1]))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		out = append(out, strings.TrimSuffix(strings.TrimSpace(buf.String()), `"`)[1:])
	}
	for _, f := range out[:len(out):len(out)] {
		out = append(out, strings.ReplaceAll(f, "/", `\/`), asciiOnly(f))
	}
	return out
}

// asciiOnly writes every non-ASCII character of a JSON-escaped text as
// \uXXXX, a UTF-16 surrogate pair above U+FFFF.
func asciiOnly(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// isNumberText reports whether v could be the text of a JSON number, so that
// an upstream could echo it as one.
func isNumberText(v string) bool {
	digits := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			digits = true
		case c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return digits
}
