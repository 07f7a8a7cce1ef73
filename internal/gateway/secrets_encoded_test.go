package gateway_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// encodedForms are the spellings of secret a leak could take: as is, the
// stable middle of its base64 at each byte alignment (standard and URL-safe
// alphabets), hex in both cases, URL escapes and JSON \u escapes.
func encodedForms(secret string) []string {
	out := []string{secret, hex.EncodeToString([]byte(secret)), strings.ToUpper(hex.EncodeToString([]byte(secret))),
		url.QueryEscape(secret), url.PathEscape(secret), escapeAll(secret)}
	for _, p := range []string{"", "B", "Be"} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			e := enc.EncodeToString([]byte(p + secret))
			out = append(out, e[8:len(e)-8])
		}
	}
	return out
}

// escapeAll writes every character of s as a JSON \u escape.
func escapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// TestEncodedSecretAppearsNowhere: an upstream echoes the Authorization
// header it receives as base64 (alone and inside a longer text), hex, URL
// escapes and JSON \u escapes, in a JSON answer, a JSON answer served as
// text/plain and a 500's body; a workflow decodes the base64 with
// TransformData fromBase64. No encoding of the secret reaches a result, an
// error's details.response, an event, a log line, the audit or the database.
func TestEncodedSecretAppearsNowhere(t *testing.T) {
	const secret = "tok-9f8e/7d6c+5b4a=39281706xyz"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		b := []byte(auth)
		body := fmt.Sprintf(`{"b64":[%q],"b64url":%q,"hex":%q,"HEX":%q,"query":%q,"path":%q,"line":%q,"escaped":"%s"}`,
			base64.StdEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b), hex.EncodeToString(b),
			strings.ToUpper(hex.EncodeToString(b)), url.QueryEscape(auth), url.PathEscape(auth),
			base64.StdEncoding.EncodeToString([]byte("GET / HTTP/1.1\r\nAuthorization: "+auth+"\r\n")), escapeAll(auth))
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
		case "/fail":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(500)
		}
		fmt.Fprint(w, body)
	}))
	defer echo.Close()
	s := newServer(t)
	s.call("PUT", "/api/v1/admin/credentials/api", s.admin, map[string]any{"type": "bearer-token", "value": secret}).want(t, 200)
	_, key := s.anyAccount("api")

	call := func(path string) string {
		return `{"type":"operationUpdate","operationId":"call","operation":{"ApiCall":{"method":"GET","url":"` + echo.URL + path +
			`","headers":{"Authorization":{"credentialRef":{"id":"api"}}},"retry":{"maxRetries":0},"outputPath":"/workflow/r"}}}`
	}
	docs := []string{
		jsonl(call("/json"),
			`{"type":"operationUpdate","operationId":"decode","operation":{"TransformData":{"inputPath":"/workflow/r.b64","transform":"map","config":{"expression":"fromBase64(item)"},"outputPath":"/workflow/plain"}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["call","decode"]}`),
		jsonl(call("/text"), `{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["call"]}`),
		jsonl(call("/fail"), `{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["call"]}`),
	}
	var answers []string
	for _, doc := range docs {
		answers = append(answers, runBothWays(t, s, key, doc)...)
	}
	all := strings.Join(answers, "\n")
	// The upstream's answers did arrive (else the test proves nothing).
	if !strings.Contains(all, "[REDACTED]") || !strings.Contains(all, "statusCode") {
		t.Fatalf("no scrubbed answer reached the workflow: %s", all)
	}
	answers = append(answers, string(s.call("GET", "/api/v1/admin/audit?limit=1000", s.admin, nil).raw), s.logs.String())
	forms := encodedForms(secret)
	for i, a := range answers {
		for _, f := range forms {
			if strings.Contains(a, f) {
				t.Fatalf("answer %d holds %q: %s", i, f, a)
			}
		}
	}
	assertNotStored(t, s, forms)
}
