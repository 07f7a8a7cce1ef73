package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/client"
)

// TestExecuteBodyAsClient: the generator's spliced body is, decoded, the
// body the Go client sends for the same call.
func TestExecuteBodyAsClient(t *testing.T) {
	var got []json.RawMessage
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, b)
		if r.Header.Get("Authorization") != "Bearer k1" {
			t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
		}
		_, _ = io.WriteString(w, `{"execution_id":"exec-1","status":"success","results":{}}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	data, err := newExecutePoster(srv.Client(), srv.URL, "k1", dataWorkflow("t", -1, -1), benchExecutionID("data", "t", -1, -1), true)
	if err != nil {
		t.Fatal(err)
	}
	api, err := newExecutePoster(srv.Client(), srv.URL, "k1", apiCallWorkflow("http://up", "t", -1, -1), benchExecutionID("api", "t", -1, -1), false)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(srv.URL, "k1", srv.Client())
	for _, n := range []int{0, 7, 499, 123457} {
		if err := data.post(ctx, benchExecutionID("data", "t", 3, n), n); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Execute(ctx, dataWorkflow("t", 3, n), client.ExecuteOptions{Input: dataInput(n)}); err != nil {
			t.Fatal(err)
		}
		if err := api.post(ctx, benchExecutionID("api", "t", 3, n), n); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Execute(ctx, apiCallWorkflow("http://up", "t", 3, n), client.ExecuteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 16 {
		t.Fatalf("%d requests, want 16", len(got))
	}
	for i := 0; i < len(got); i += 2 {
		var mine, theirs any
		if err := json.Unmarshal(got[i], &mine); err != nil {
			t.Fatalf("request %d is not JSON: %v: %s", i, err, got[i])
		}
		_ = json.Unmarshal(got[i+1], &theirs)
		if !reflect.DeepEqual(mine, theirs) {
			t.Errorf("request %d:\n generator %s\n client    %s", i, got[i], got[i+1])
		}
	}
}

// TestExecutePosterFailures: an execution that did not succeed, an HTTP
// error and an answer that is not JSON are errors that say what came back.
func TestExecutePosterFailures(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{200, `{"execution_id":"exec-2","status":"failed","errors":[{"code":"X"}]}`, `exec-2 ended "failed"`},
		{401, `{"error":{"code":"unauthorized"}}`, "HTTP 401"},
		{502, `<html>bad gateway</html>`, "status 502"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(tc.status)
			_, _ = io.WriteString(w, tc.body)
		}))
		p, err := newExecutePoster(srv.Client(), srv.URL, "k", dataWorkflow("t", -1, -1), benchExecutionID("data", "t", -1, -1), true)
		if err != nil {
			t.Fatal(err)
		}
		err = p.post(context.Background(), "data-t-1-1", 1)
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("HTTP %d %s: error %v, want it to name %q", tc.status, tc.body, err, tc.want)
		}
	}
	if _, err := newExecutePoster(http.DefaultClient, "http://x", "k", `{"no":"marker"}`, "data-x", false); err == nil {
		t.Error("a template without its id marker was accepted")
	}
}
