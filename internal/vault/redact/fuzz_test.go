package redact_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluicehq/sluice/internal/vault/redact"
)

// encoding is one way an upstream may echo a whole text holding the secret,
// with the part of the encoded text that comes from the secret alone (its
// witness): "" when no part is fixed by the secret alone.
type encoding struct {
	name    string
	encode  func(string) string
	witness func(secret string, offset int, whole bool) string
}

func b64Witness(enc *base64.Encoding) func(string, int, bool) string {
	return func(secret string, offset int, whole bool) string {
		if whole {
			return enc.EncodeToString([]byte(secret))
		}
		if len(secret) < redact.MinEmbeddedLen {
			return ""
		}
		// The 4-character groups made of the secret's bytes only, at its
		// alignment in the text.
		k := offset % 3
		full := base64.RawStdEncoding.EncodeToString(append(make([]byte, k), secret...))
		first, last := (k+2)/3, (k+len(secret))/3
		core := full[4*first : 4*last]
		if enc == base64.URLEncoding || enc == base64.RawURLEncoding {
			core = strings.NewReplacer("+", "-", "/", "_").Replace(core)
		}
		return core
	}
}

func same(e func(string) string) func(string, int, bool) string {
	return func(secret string, _ int, _ bool) string { return e(secret) }
}

var encodings = []encoding{
	{"raw", func(s string) string { return s }, same(func(s string) string { return s })},
	{"base64", text(base64.StdEncoding.EncodeToString), b64Witness(base64.StdEncoding)},
	{"base64 raw", text(base64.RawStdEncoding.EncodeToString), b64Witness(base64.RawStdEncoding)},
	{"base64url", text(base64.URLEncoding.EncodeToString), b64Witness(base64.URLEncoding)},
	{"base64url raw", text(base64.RawURLEncoding.EncodeToString), b64Witness(base64.RawURLEncoding)},
	{"hex", text(hex.EncodeToString), same(text(hex.EncodeToString))},
	{"HEX", func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) },
		same(func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) })},
	{"query", url.QueryEscape, same(url.QueryEscape)},
	{"path", url.PathEscape, same(url.PathEscape)},
	{"json", jsonInner, same(jsonInner)},
}

func text(f func([]byte) string) func(string) string {
	return func(s string) string { return f([]byte(s)) }
}

func jsonInner(s string) string {
	j, _ := json.Marshal(s)
	return string(j[1 : len(j)-1])
}

// FuzzRedactor: for a secret placed anywhere in a text, neither the secret
// nor its part of the text's encoding survives scrubbing, in any of the
// encodings, outside the marks; and a JSON document spelling the whole text
// with \u escapes decodes, after ScrubJSON, to text without the secret.
func FuzzRedactor(f *testing.F) {
	f.Add("s3cr3t-token", "before ", " after")
	f.Add("aaaa", "aaaa", "a")
	f.Add("D]xyD]xy", "[REDACTE", "D]xy")
	f.Add("sk-live-0123456789", "Authorization: Bearer ", "\r\n")
	f.Add("pa ss/wörd+<&>", "u", "")
	f.Add("12345678", "", "")
	f.Fuzz(func(t *testing.T, secret, prefix, suffix string) {
		r := redact.New(secret)
		text := prefix + secret + suffix
		if len(secret) < redact.MinLen {
			if out := r.Scrub(text); out != text {
				t.Fatalf("a short secret must not be scrubbed: %q -> %q", text, out)
			}
			return
		}
		valid := utf8.ValidString(text) && utf8.ValidString(secret)
		for _, e := range encodings {
			if e.name == "json" && !valid {
				continue // invalid bytes are replaced, not escaped
			}
			w := e.witness(secret, len(prefix), prefix == "" && suffix == "")
			if w == "" || len(w) < redact.MinLen {
				continue
			}
			enc := e.encode(text)
			if !strings.Contains(enc, w) {
				t.Fatalf("%s: the test's witness %q is not in %q", e.name, w, enc)
			}
			out := r.Scrub(enc)
			for _, piece := range strings.Split(out, redact.Mark) {
				if strings.Contains(piece, w) {
					t.Fatalf("%s: %q survives in %q (secret %q in %q)", e.name, w, out, secret, text)
				}
			}
		}
		if !valid {
			return
		}
		doc := `{"echo":"` + escapeAll(text) + `"}`
		var got struct{ Echo string }
		if err := json.Unmarshal(r.ScrubJSON(json.RawMessage(doc)), &got); err != nil {
			t.Fatalf("ScrubJSON broke %s: %v", doc, err)
		}
		for _, piece := range strings.Split(got.Echo, redact.Mark) {
			if strings.Contains(piece, secret) {
				t.Fatalf("json: secret %q survives in %q", secret, got.Echo)
			}
		}
	})
}

// escapeAll writes every character of s as a JSON \u escape.
func escapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}
