package redact_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/vault/redact"
)

func TestRedactorForms(t *testing.T) {
	const s = "tok_9f8e7d6c5b4a/+=secret"
	const other = "pa ss\"word<&>"
	r := redact.New(s, other, "abc" /* too short: ignored */, "")
	if r.Len() != 2 {
		t.Fatalf("Len %d, want 2", r.Len())
	}
	js, _ := json.Marshal(other)
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + s))
	cases := []struct {
		name, in string
		gone     []string // none of these may remain
		keep     []string // these must remain
	}{
		{"raw", "upstream said: invalid key " + s + " (401)", []string{s}, []string{"upstream said: invalid key ", " (401)"}},
		{"bearer", "Authorization: Bearer " + s, []string{s}, []string{"Authorization: Bearer "}},
		{"base64", "token=" + base64.StdEncoding.EncodeToString([]byte(s)), []string{base64.StdEncoding.EncodeToString([]byte(s)), base64.RawStdEncoding.EncodeToString([]byte(s))}, []string{"token="}},
		{"base64url", base64.RawURLEncoding.EncodeToString([]byte(s)), []string{base64.RawURLEncoding.EncodeToString([]byte(s))[:20]}, nil},
		{"hex", "dump " + hex.EncodeToString([]byte(s)), []string{hex.EncodeToString([]byte(s))[:20]}, []string{"dump "}},
		{"query", "GET /x?key=" + url.QueryEscape(s), []string{url.QueryEscape(s)}, []string{"GET /x?key="}},
		{"json escaped", `{"password":"` + string(js[1:len(js)-1]) + `"}`, []string{string(js[1 : len(js)-1])}, []string{`{"password":"`}},
		{"basic auth", "Authorization: Basic " + basic, []string{basic}, []string{"Authorization: Basic "}},
		{"two secrets", s + " and " + other, []string{s, other}, []string{" and "}},
		{"base64 in a query", "?t=" + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(s))), []string{"dG9rXzlmOGU3ZDZjNWI0YS8rPXNlY3JldA"}, []string{"?t="}},
		{"lower-case percent", "k=" + strings.ToLower(url.QueryEscape(s)), []string{"tok_9f8e7d6c5b4a"}, []string{"k="}},
		{"json slash escaped", `{"k":"` + strings.ReplaceAll(s, "/", `\/`) + `"}`, []string{"tok_9f8e7d6c5b4a"}, []string{`{"k":"`}},
		{"HEX", strings.ToUpper(hex.EncodeToString([]byte(other))), []string{strings.ToUpper(hex.EncodeToString([]byte(other)))[:12]}, nil},
		{"nothing to do", "all is well", nil, []string{"all is well"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := r.Scrub(c.in)
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Errorf("%q still holds %q", out, g)
				}
			}
			for _, k := range c.keep {
				if !strings.Contains(out, k) {
					t.Errorf("%q lost %q", out, k)
				}
			}
			if c.gone != nil && !strings.Contains(out, redact.Mark) {
				t.Errorf("%q has no redaction mark", out)
			}
			if got := r.ScrubBytes([]byte(c.in)); string(got) != out {
				t.Errorf("ScrubBytes %q != Scrub %q", got, out)
			}
		})
	}
	// The basic-auth case at every alignment of the secret inside the text.
	for pad := 0; pad < 3; pad++ {
		prefix := strings.Repeat("u", pad) + "user:"
		enc := base64.StdEncoding.EncodeToString([]byte(prefix + s + "\n"))
		out := r.Scrub(enc)
		// At most two characters on either side of the mark may be left of
		// the encoded secret; the 18 middle bytes must be gone.
		core := base64.RawStdEncoding.EncodeToString([]byte(s))[8:24]
		if strings.Contains(out, core) || !strings.Contains(out, redact.Mark) {
			t.Errorf("alignment %d: %q -> %q", pad, enc, out)
		}
	}
}

func TestRedactorNilAndWith(t *testing.T) {
	var r *redact.Redactor
	if r.Scrub("x secret-1 y") != "x secret-1 y" || r.Len() != 0 {
		t.Fatal("a nil redactor scrubs nothing")
	}
	r2 := r.With("secret-1")
	r3 := r2.With("secret-2", "secret-1")
	if r2.Len() != 1 || r3.Len() != 2 {
		t.Fatalf("Len %d %d", r2.Len(), r3.Len())
	}
	if got := r3.Scrub("secret-1 secret-2"); got != redact.Mark+" "+redact.Mark {
		t.Fatalf("got %q", got)
	}
	if got := r2.Scrub("secret-2"); got != "secret-2" {
		t.Fatal("With must not change the redactor it was called on")
	}
	b := []byte("clean")
	if out := r3.ScrubBytes(b); &out[0] != &b[0] {
		t.Fatal("ScrubBytes must not copy clean input")
	}
}

func TestRedactorReplaceAttr(t *testing.T) {
	r := redact.New("hunter2-hunter2")
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: r.ReplaceAttr}))
	log.Info("upstream body", "body", `{"error":"bad token hunter2-hunter2"}`, "status", 401)
	if strings.Contains(buf.String(), "hunter2-hunter2") || !strings.Contains(buf.String(), `"status":401`) {
		t.Fatalf("log: %s", buf.String())
	}
}

func TestRedactorConcurrentFirstUse(t *testing.T) {
	r := redact.New("concurrent-secret-1")
	done := make(chan string)
	for range 8 {
		go func() { done <- r.Scrub("x concurrent-secret-1 y") }()
	}
	for range 8 {
		if got := <-done; got != "x "+redact.Mark+" y" {
			t.Fatalf("got %q", got)
		}
	}
}

func TestRedactorValues(t *testing.T) {
	const s = "sk-live-4f3c2b1a0987"
	r := redact.New(s, "12345678")
	in := map[string]any{
		"clean":  []any{"a", 1.5, map[string]any{"x": "y"}},
		"echo":   []any{"Bearer " + s},
		s:        "key was the secret",
		"pin":    12345678.0,
		"number": json.Number("12345678"),
	}
	out := r.ScrubValue(in).(map[string]any)
	b, _ := json.Marshal(out)
	if strings.Contains(string(b), s) || strings.Contains(string(b), "12345678") {
		t.Fatalf("scrubbed value %s", b)
	}
	if _, ok := in[s]; !ok || in["pin"] != 12345678.0 {
		t.Fatal("ScrubValue must not change its input")
	}
	clean := in["clean"].([]any)
	if got := out["clean"].([]any); &got[0] != &clean[0] {
		t.Fatal("an unchanged part must be shared, not copied")
	}

	// A JSON document spelling the secret with \u escapes, or not at all.
	doc := json.RawMessage(`{"a":"\u0073k-live-4f3c2b1a0987","n":1e3,"s":"<&>"}`)
	got := string(r.ScrubJSON(doc))
	if strings.Contains(got, s) || !strings.Contains(got, redact.Mark) || !strings.Contains(got, `"<&>"`) || !strings.Contains(got, "1e3") {
		t.Fatalf("ScrubJSON: %s", got)
	}
	plain := json.RawMessage(`{"a":"nothing here"}`)
	if out := r.ScrubJSON(plain); &out[0] != &plain[0] {
		t.Fatal("ScrubJSON must return a clean document as it is")
	}
	if got := string(r.ScrubJSON(json.RawMessage(`not json ` + s))); strings.Contains(got, s) {
		t.Fatalf("ScrubJSON of text: %s", got)
	}
}

// Overlapping occurrences of the forms of two values are scrubbed whole.
func TestRedactorOverlaps(t *testing.T) {
	r := redact.New("abcdefgh", "efghijkl")
	if got := r.Scrub("xabcdefghijkly"); got != "x"+redact.Mark+"y" {
		t.Fatalf("got %q", got)
	}
}
