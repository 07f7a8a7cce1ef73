package gateway_test

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestSecretAppearsNowhere runs the whole API with a known credential, against
// an upstream that echoes what it receives (success) and fails with it in the
// body (failure), and checks that the value appears in no answer, no event, no
// log line, no audit record and no database row except the vault's ciphertext.
func TestSecretAppearsNowhere(t *testing.T) {
	const secret = "tok-9f8e7d6c5b4a39281706"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		auth := r.Header.Get("Authorization")
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(500)
		}
		fmt.Fprintf(w, `{"seen":%q}`, auth)
	}))
	defer echo.Close()
	s := newServer(t)
	s.call("PUT", "/api/v1/admin/credentials/api", s.admin, map[string]any{"type": "bearer-token", "value": secret}).want(t, 200)
	_, key := s.anyAccount("api")

	var answers []string
	for _, path := range []string{"/ok", "/fail"} {
		doc := jsonl(`{"type":"operationUpdate","operationId":"call","operation":{"ApiCall":{"method":"GET","url":"`+echo.URL+path+`","headers":{"Authorization":{"credentialRef":{"id":"api"}}},"retry":{"maxRetries":0},"outputPath":"/workflow/r"}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["call"]}`)
		answers = append(answers, runBothWays(t, s, key, doc)...)
	}
	// The upstream did receive it (else the test proves nothing).
	if !strings.Contains(strings.Join(answers, "\n"), "Bearer") {
		t.Fatal("no call reached the upstream with a credential")
	}
	answers = append(answers, string(s.call("GET", "/api/v1/admin/audit?limit=1000", s.admin, nil).raw))
	answers = append(answers, string(s.call("GET", "/api/v1/admin/credentials", s.admin, nil).raw))
	for i, a := range answers {
		if strings.Contains(a, secret) || strings.Contains(a, secret[len(secret)-12:]) {
			t.Fatalf("answer %d holds the secret: %s", i, a)
		}
	}
	if strings.Contains(s.logs.String(), secret) {
		t.Fatal("a log line holds the secret")
	}
	assertNotStored(t, s, []string{secret})
}

// runBothWays executes doc synchronously and asynchronously and returns every
// answer: the execute answers, the execution records as polled until they
// end, and their event streams.
func runBothWays(t *testing.T, s *testServer, key, doc string) []string {
	t.Helper()
	var answers []string
	for _, async := range []bool{false, true} {
		r := s.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc, "async": async})
		answers = append(answers, string(r.raw))
		id := r.str("execution_id")
		waitFor(t, 10*time.Second, "the execution to end", func() bool {
			g := s.call("GET", "/api/v1/executions/"+id, key, nil)
			answers = append(answers, string(g.raw))
			st := g.str("status")
			return st == "success" || st == "failed"
		})
		frames, end := readSSE(t, s, key, "/api/v1/executions/"+id+"/events", "")
		for _, f := range frames {
			answers = append(answers, fmt.Sprint(f.frame))
		}
		answers = append(answers, end)
	}
	return answers
}

// assertNotStored closes s (flushing audit and the database) and checks that
// no row of any table and no file of the data directory holds any of
// forbidden.
func assertNotStored(t *testing.T, s *testServer, forbidden []string) {
	t.Helper()
	holds := func(text string) (string, bool) {
		for _, f := range forbidden {
			if strings.Contains(text, f) {
				return f, true
			}
		}
		return "", false
	}
	s.close() // flush audit and close the database

	db, err := sql.Open("sqlite", filepath.Join(s.dataDir, "sluice.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		_ = tables.Scan(&n)
		names = append(names, n)
	}
	tables.Close()
	rows := 0
	for _, n := range names {
		rs, err := db.Query(`SELECT * FROM "` + n + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rs.Columns()
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			_ = rs.Scan(ptrs...)
			rows++
			for i, v := range vals {
				var text string
				switch x := v.(type) {
				case []byte:
					text = string(x)
				default:
					text = fmt.Sprint(x)
				}
				if f, ok := holds(text); ok {
					t.Errorf("table %s column %s holds %q", n, cols[i], f)
				}
			}
		}
		rs.Close()
	}
	if rows < 10 {
		t.Fatalf("only %d rows read: the scan proves nothing", rows)
	}
	// The files of the data directory hold no clear copy either.
	_ = filepath.Walk(s.dataDir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		f, _ := os.Open(p)
		defer f.Close()
		b, _ := io.ReadAll(f)
		if f, ok := holds(string(b)); ok {
			t.Errorf("file %s holds %q", p, f)
		}
		return nil
	})
}
