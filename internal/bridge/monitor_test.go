package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// drain leases every item of topic (without acking) and decodes them as
// monitoring messages, in order.
func drainMonitoring(t *testing.T, q queue.Queue, topic string, want int) []*agenthttp.MonitoringMessage {
	t.Helper()
	var got []*agenthttp.MonitoringMessage
	eventually(t, "monitoring updates", func() bool {
		items, err := q.Lease(ctx, topic, "probe", 100, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			m, err := agenthttp.DecodeMonitoringMessage(it.Payload, agenthttp.Limits{})
			if err != nil {
				t.Fatalf("a monitoring update does not decode: %v\n%s", err, it.Payload)
			}
			got = append(got, m)
		}
		return len(got) >= want
	})
	return got
}

func TestMonitoringUpdates(t *testing.T) {
	q := localQueue(t)
	inv := &fakeInvoker{fn: func(_ context.Context, _ int, c call) (json.RawMessage, error) {
		if strings.Contains(string(c.input), "fail") {
			return nil, fault.New(fault.Upstream, "agent summarizer answered 400: bad input")
		}
		return json.RawMessage(`{}`), nil
	}}
	c := pair(t, q, inv, func(_ *Client, w *Worker) { w.Monitoring = agenthttp.TopicMonitoring })
	if _, err := c.Invoke(ctx, "summarizer", "ok-task", nil, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Invoke(ctx, "summarizer", "bad-task", json.RawMessage(`{"fail":true}`), ""); fault.KindOf(err) != fault.Upstream {
		t.Fatalf("got %v, want Upstream", err)
	}
	got := drainMonitoring(t, q, agenthttp.TopicMonitoring, 4)
	seen := map[string]*agenthttp.MonitoringMessage{}
	for _, m := range got {
		seen[m.StepID+" "+string(m.Status)] = m
		if m.StepName != "summarizer" || !strings.HasPrefix(m.RunID, "call-") {
			t.Fatalf("update %+v: want step_name the agent and run_id the call", m)
		}
	}
	for _, k := range []string{"ok-task RUNNING", "ok-task COMPLETED", "bad-task RUNNING", "bad-task FAILED"} {
		if seen[k] == nil {
			t.Fatalf("no %s update in %d updates", k, len(got))
		}
	}
	var meta map[string]any
	if err := json.Unmarshal(seen["bad-task FAILED"].Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if meta["error_code"] != "upstream" || !strings.Contains(meta["error"].(string), "bad input") {
		t.Fatalf("FAILED metadata %v: want the error and its code", meta)
	}
	if len(got) != 4 {
		t.Fatalf("%d updates, want 4", len(got))
	}
}

// No monitoring topic: nothing is published.
func TestNoMonitoringByDefault(t *testing.T) {
	q := localQueue(t)
	c := pair(t, q, &fakeInvoker{}, nil)
	if _, err := c.Invoke(ctx, "summarizer", "task-1", nil, ""); err != nil {
		t.Fatal(err)
	}
	if items, _ := q.Lease(ctx, agenthttp.TopicMonitoring, "probe", 10, time.Second); len(items) != 0 {
		t.Fatalf("%d monitoring updates published without a topic", len(items))
	}
}

// A task nobody can run is dropped (not redelivered forever), and the
// worker goes on with the next.
func TestPoisonTaskIsDropped(t *testing.T) {
	q := localQueue(t)
	for i, payload := range []string{`not json`, `{"run_id":"r"}`, `{"run_id":"r","task_id":"t","agent_name":"a","input_data":[],"correlation_id":"c","timestamp":"2026-03-28T12:00:00Z"}`} {
		if _, err := q.Enqueue(ctx, queue.Message{Topic: agenthttp.TopicTasks, ID: "poison-" + string(rune('a'+i)), Payload: []byte(payload)}); err != nil {
			t.Fatal(err)
		}
	}
	inv := &fakeInvoker{}
	c := pair(t, q, inv, nil)
	if _, err := c.Invoke(ctx, "summarizer", "task-1", nil, ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the poison tasks to be acked", func() bool {
		items, _ := q.Lease(ctx, agenthttp.TopicTasks, "probe", 10, time.Millisecond)
		return len(items) == 0
	})
	if n := len(inv.recorded()); n != 1 {
		t.Fatalf("agent called %d times, want once (poison tasks are not run)", n)
	}
}

// Tasks produced by another platform, without reply_to, answer on the
// default results topic, in the seed shape.
func TestSeedTaskAnswersOnTheResultsTopic(t *testing.T) {
	q := localQueue(t)
	w := &Worker{Queue: q, Invoker: &fakeInvoker{}}
	start(t, func(ctx context.Context) { _ = w.Run(ctx, "w") })
	task := `{"run_id":"run-9","task_id":"t-9","agent_name":"summarizer","input_data":{"a":1},"correlation_id":"c-9","timestamp":"2026-03-28T12:00:00Z"}`
	if _, err := q.Enqueue(ctx, queue.Message{Topic: agenthttp.TopicTasks, ID: "run-9/t-9", Payload: []byte(task)}); err != nil {
		t.Fatal(err)
	}
	var r *agenthttp.ResultMessage
	eventually(t, "a result on "+agenthttp.TopicResults, func() bool {
		items, _ := q.Lease(ctx, agenthttp.TopicResults, "probe", 1, time.Minute)
		if len(items) == 0 {
			return false
		}
		var err error
		if r, err = agenthttp.DecodeResultMessage(items[0].Payload, agenthttp.Limits{}); err != nil {
			t.Fatal(err)
		}
		if items[0].ID != "run-9/t-9" {
			t.Fatalf("result item id %q, want run-9/t-9", items[0].ID)
		}
		return true
	})
	if r.Status != agenthttp.ResultSuccess || r.CorrelationID != "c-9" || string(r.OutputData) != `{"echo":{"a":1}}` || r.ErrorMessage != nil {
		t.Fatalf("result %+v", r)
	}
}

func TestItemIDBounded(t *testing.T) {
	long := strings.Repeat("x", 200)
	id := itemID(long, long)
	if len(id) > queue.MaxIDBytes || !strings.HasPrefix(id, "sha256:") {
		t.Fatalf("id %q (%d bytes)", id, len(id))
	}
	if itemID(long, long) != id || itemID(long, long+"y") == id {
		t.Fatal("itemID is not a function of its input")
	}
	if got := itemID("r", "t"); got != "r/t" {
		t.Fatalf("short id %q", got)
	}
}
