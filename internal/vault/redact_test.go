package vault_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/vault"
)

func TestRedactorForms(t *testing.T) {
	const s = "tok_9f8e7d6c5b4a/+=secret"
	const other = "pa ss\"word<&>"
	r := vault.NewRedactor(s, other, "abc" /* too short: ignored */, "")
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
			if c.gone != nil && !strings.Contains(out, vault.Redaction) {
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
		if strings.Contains(out, core) || !strings.Contains(out, vault.Redaction) {
			t.Errorf("alignment %d: %q -> %q", pad, enc, out)
		}
	}
}

func TestRedactorNilAndWith(t *testing.T) {
	var r *vault.Redactor
	if r.Scrub("x secret-1 y") != "x secret-1 y" || r.Len() != 0 {
		t.Fatal("a nil redactor scrubs nothing")
	}
	r2 := r.With("secret-1")
	r3 := r2.With("secret-2", "secret-1")
	if r2.Len() != 1 || r3.Len() != 2 {
		t.Fatalf("Len %d %d", r2.Len(), r3.Len())
	}
	if got := r3.Scrub("secret-1 secret-2"); got != vault.Redaction+" "+vault.Redaction {
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
	r := vault.NewRedactor("hunter2-hunter2")
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: r.ReplaceAttr}))
	log.Info("upstream body", "body", `{"error":"bad token hunter2-hunter2"}`, "status", 401)
	if strings.Contains(buf.String(), "hunter2-hunter2") || !strings.Contains(buf.String(), `"status":401`) {
		t.Fatalf("log: %s", buf.String())
	}
}

func TestPlaintextJSON(t *testing.T) {
	var e vault.Entry
	if err := json.Unmarshal([]byte(`{"id":"gh","type":"bearer-token","value":"ghp_secret_value_1"}`), &e); err != nil {
		t.Fatal(err)
	}
	if e.Value.Reveal() != "ghp_secret_value_1" || e.ID != "gh" {
		t.Fatalf("decoded %v", e)
	}
	b, _ := json.Marshal(e)
	if strings.Contains(string(b), "ghp_secret") || !strings.Contains(string(b), `"value":"[REDACTED]"`) {
		t.Fatalf("encoded %s", b)
	}
	if err := json.Unmarshal([]byte(`{"value":42}`), &e); err == nil {
		t.Fatal("a non-string value must be refused")
	}
}

// FuzzRedactor checks that no occurrence of the secret survives outside the
// redaction marks, wherever it sits in the text.
func FuzzRedactor(f *testing.F) {
	f.Add("s3cr3t-token", "before s3cr3t-token after")
	f.Add("aaaa", "aaaaaaaaa")
	f.Add("D]xyD]xy", "[REDACTED]xyD]xy")
	f.Add("user:pass", base64.StdEncoding.EncodeToString([]byte("user:pass")))
	f.Fuzz(func(t *testing.T, secret, text string) {
		r := vault.NewRedactor(secret)
		out := r.Scrub(text)
		if len(secret) < vault.MinRedactLen {
			if out != text {
				t.Fatalf("a short secret must not be scrubbed: %q -> %q", text, out)
			}
			return
		}
		for _, piece := range strings.Split(out, vault.Redaction) {
			if strings.Contains(piece, secret) {
				t.Fatalf("secret %q survives in %q (from %q)", secret, out, text)
			}
		}
	})
}

func TestRedactorConcurrentFirstUse(t *testing.T) {
	r := vault.NewRedactor("concurrent-secret-1")
	done := make(chan string)
	for range 8 {
		go func() { done <- r.Scrub("x concurrent-secret-1 y") }()
	}
	for range 8 {
		if got := <-done; got != "x "+vault.Redaction+" y" {
			t.Fatalf("got %q", got)
		}
	}
}
