package gateway_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
)

// finalFrames reads an execution's event stream through s (at most 30 s)
// and returns its frames and how many of them are final.
func streamThrough(t *testing.T, s *testServer, key, id string) (frames []map[string]any, finals int) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.http.URL+"/api/v1/executions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
		case strings.HasPrefix(line, "data: "):
			if event == "end" || event == "error" {
				return frames, finals
			}
			var f map[string]any
			if err := json.Unmarshal([]byte(line[6:]), &f); err != nil {
				t.Fatal(err)
			}
			frames = append(frames, f)
			if f["is_final"] == true {
				finals++
			}
		}
	}
	t.Fatalf("the stream through %s ended without its end event (or timed out: %v) after %d frames", s.http.URL, sc.Err(), len(frames))
	return nil, 0
}

// resultStatus is the execution status a final frame carries.
func resultStatus(f map[string]any) any {
	body, _ := f["body"].(map[string]any)
	result, _ := body["result"].(map[string]any)
	return result["status"]
}

// An execution runs on gateway a; b, started afterwards, never runs it.
// Through b, its live stream follows it to the end, and a cancel stops it on
// a (its concurrency slot is free again) with one final frame.
func TestExecutionAcrossGateways(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	onPG := func(c *config.Config) { c.Store.DSN = dsn }
	a := startServer(t, dir, onPG)
	_, key := a.account(map[string]any{"operations": []string{"*"}}, map[string]any{"max_concurrent_executions": 1,
		"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1})
	start := func(doc string) string {
		id := a.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": doc, "async": true}).
			want(t, http.StatusAccepted).str("execution_id")
		waitFor(t, 20*time.Second, "the execution to run on a", func() bool {
			return a.call("GET", "/api/v1/executions/"+id, key, nil).str("status") == "running"
		})
		return id
	}
	steps := start(jsonl(`{"type":"operationUpdate","operationId":"w1","operation":{"Wait":{"duration":1500}}}`,
		`{"type":"operationUpdate","operationId":"w2","operation":{"Wait":{"duration":1500}}}`,
		`{"type":"operationUpdate","operationId":"w3","operation":{"Wait":{"duration":1500}}}`,
		`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w1","w2","w3"]}`))
	b := startServer(t, dir, onPG)

	t.Run("live stream through the other gateway", func(t *testing.T) {
		frames, finals := streamThrough(t, b, key, steps)
		if finals != 1 || frames[len(frames)-1]["is_final"] != true || resultStatus(frames[len(frames)-1]) != "success" {
			t.Fatalf("%d frames, %d final, last %v", len(frames), finals, frames[len(frames)-1])
		}
		if len(frames) < 4 {
			t.Fatalf("%d frames: want the three operations' frames and the final one", len(frames))
		}
	})

	t.Run("cancel through the other gateway", func(t *testing.T) {
		slow := start(jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":120000}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`))
		if st := b.call("POST", "/api/v1/executions/"+slow+"/cancel", key, nil).want(t, http.StatusOK).str("status"); st != "cancelled" {
			t.Fatalf("cancel answered status %q", st)
		}
		// Stopped on a: the account's one slot is free well before the
		// two-minute wait would have ended.
		quick := jsonl(`{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}`,
			`{"type":"beginExecution","executionId":"`+uniqueID()+`","operationOrder":["w"]}`)
		waitFor(t, 30*time.Second, "the cancelled execution to free its slot on a", func() bool {
			r := a.call("POST", "/api/v1/workflows/execute", key, map[string]any{"workflow": quick})
			return r.status == http.StatusOK
		})
		for _, s := range []*testServer{a, b} {
			frames, finals := streamThrough(t, s, key, slow)
			if finals != 1 || resultStatus(frames[len(frames)-1]) != "cancelled" {
				t.Fatalf("through %s: %d frames, %d final, last %v", s.http.URL, len(frames), finals, frames[len(frames)-1])
			}
		}
		if st := a.call("GET", "/api/v1/executions/"+slow, key, nil).str("status"); st != "cancelled" {
			t.Fatalf("status %q after the run stopped", st)
		}
	})
}
