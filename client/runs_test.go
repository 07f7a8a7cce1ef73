package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/client"
)

// RunEvents reads every way a stream can answer: frames then end, frames
// then error, the summary as JSON, a refusal, and a stream cut short.
func TestRunEventsAnswers(t *testing.T) {
	answers := map[string]struct {
		ctype, body string
		status      int
	}{
		"ok":    {"text/event-stream", ": hb\n\nid: 1\nevent: frame\ndata: {\"a\":1}\n\nid: 2\nevent: frame\ndata: {\"b\":2}\n\nevent: end\ndata: {\"run_id\":\"ok\",\"frames\":2,\"last_seq\":2,\"ended\":true}\n\n", 200},
		"err":   {"text/event-stream", "id: 1\nevent: frame\ndata: {}\n\nevent: error\ndata: {\"code\":\"Internal\",\"message\":\"the store went away\"}\n\n", 200},
		"json":  {"application/json", `{"run_id":"json","frames":0,"last_seq":0,"ended":true}`, 200},
		"gone":  {"application/json", `{"error":{"type":"NotFoundError","message":"run gone not found"}}`, 404},
		"cut":   {"text/event-stream", "id: 1\nevent: frame\ndata: {}\n\n", 200},
		"badid": {"text/event-stream", "id: x\nevent: frame\ndata: {}\n\n", 200},
	}
	var after string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v1/runs/"), "/events")
		after = r.URL.Query().Get("after")
		a := answers[id]
		w.Header().Set("Content-Type", a.ctype)
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "k", nil)
	ctx := context.Background()

	var seqs []int64
	end, err := c.RunEvents(ctx, "ok", 7, func(f client.Frame) error { seqs = append(seqs, f.Seq); return nil })
	if err != nil || !end.Ended || end.LastSeq != 2 || len(seqs) != 2 || seqs[1] != 2 || after != "7" {
		t.Fatalf("ok: %+v %v %v after=%q", end, err, seqs, after)
	}
	_, err = c.RunEvents(ctx, "err", 0, func(client.Frame) error { return nil })
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Type != "Internal" || ce.Message != "the store went away" {
		t.Fatalf("error event: %v", err)
	}
	if end, err := c.RunEvents(ctx, "json", 0, func(client.Frame) error { t.Fatal("no frame"); return nil }); err != nil || end.RunID != "json" || !end.Ended {
		t.Fatalf("summary: %+v %v", end, err)
	}
	if _, err := c.RunEvents(ctx, "gone", 0, nil); !errors.As(err, &ce) || ce.Status != 404 {
		t.Fatalf("404: %v", err)
	}
	if _, err := c.RunEvents(ctx, "cut", 0, func(client.Frame) error { return nil }); err == nil || !strings.Contains(err.Error(), "before its end") {
		t.Fatalf("cut: %v", err)
	}
	if _, err := c.RunEvents(ctx, "badid", 0, func(client.Frame) error { return nil }); err == nil || !strings.Contains(err.Error(), "sequence") {
		t.Fatalf("bad id: %v", err)
	}
	stop := errors.New("enough")
	if _, err := c.RunEvents(ctx, "ok", 0, func(client.Frame) error { return stop }); err != stop {
		t.Fatalf("fn's error: %v", err)
	}
}
