package agenthttp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// A task message carries the caller's trace context both ways, and a
// traceparent with a control character or over its bound is refused naming
// the field.
func TestTaskMessageTraceContext(t *testing.T) {
	m := agenthttp.TaskMessage{RunID: "r1", TaskID: "t1", AgentName: "echo", CorrelationID: "c1", Timestamp: time.Unix(0, 0),
		Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Tracestate: "vendor=1", Baggage: "tenant=a"}
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := agenthttp.DecodeTaskMessage(b, agenthttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Traceparent != m.Traceparent || got.Tracestate != m.Tracestate || got.Baggage != m.Baggage {
		t.Fatalf("decoded %+v from %s", got, b)
	}
	for _, bad := range []string{`"00-ab\u0001"`, `"` + strings.Repeat("a", agenthttp.MaxTraceparentBytes+1) + `"`, `7`} {
		raw := strings.Replace(string(b), `"traceparent":"`+m.Traceparent+`"`, `"traceparent":`+bad, 1)
		_, err := agenthttp.DecodeTaskMessage([]byte(raw), agenthttp.Limits{})
		if err == nil || !strings.Contains(err.Error(), "traceparent") {
			t.Errorf("traceparent %s: %v", bad, err)
		}
	}
}
