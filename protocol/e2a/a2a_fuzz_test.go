package e2a_test

import (
	"encoding/json"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// FuzzA2AOutput: whatever JSON object an agent sends as an A2A payload (any
// version, any junk), what sluice writes of it under every StreamResponse key
// is A2A 1.0 that strict protojson reads, and a SendMessage result is a Task
// or a Message.
func FuzzA2AOutput(f *testing.F) {
	seedInputs(f)
	f.Add([]byte(`{"kind":"task","status":{"state":"input-required","timestamp":"0000-12-31T23:00:00-02:00"},"history":[null,{"parts":[null,{"kind":"file","file":{"bytes":"%%"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var payload map[string]any
		if json.Unmarshal(data, &payload) != nil {
			return
		}
		for _, branch := range e2a.StreamBranches {
			r := &e2a.Response{ResponseID: "r", RequestID: "q", Kind: e2a.KindA2AStreamEvent,
				Body: map[string]any{"branch": branch, "payload": payload}}
			b, err := json.Marshal(e2a.ResponseToA2A(r))
			if err != nil {
				t.Fatal(err)
			}
			if err := strictProtoJSON.Unmarshal(b, &a2apb.StreamResponse{}); err != nil {
				t.Fatalf("%s: not A2A 1.0: %v\n%s", branch, err, b)
			}
			if res := e2a.ResultToA2A(r); res != nil {
				b, _ := json.Marshal(res)
				var out a2apb.SendMessageResponse
				if err := strictProtoJSON.Unmarshal(b, &out); err != nil || out.Payload == nil {
					t.Fatalf("%s: not a SendMessage result: %v\n%s", branch, err, b)
				}
			}
		}
	})
}

// FuzzNormalizeRequest: any bytes given to `sluice e2a normalize` give an
// envelope that encodes and decodes back, or a clear *e2a.Error; never a panic.
func FuzzNormalizeRequest(f *testing.F) {
	seedInputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := e2a.NormalizeRequest(data, e2a.Limits{}, e2a.NormalizeOptions{Now: fixedNow})
		if err != nil {
			checkDecodeError(t, data, err)
			return
		}
		assertEnvelopeRoundTrip(t, e)
	})
}
