package gateway

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/session"
)

// A tools.Result becomes the same tool/call/resp data whether it is copied
// (sessionToolResult) or encoded and decoded again (what it replaced).
func TestSessionToolResultCopiesAsRemarshal(t *testing.T) {
	for _, r := range []*tools.Result{
		{Success: true, ToolName: "op.FilterData", Data: []any{map[string]any{"v": 3.0, "html": "<&>"}}, Summary: "execution exec-1 success", DurationMs: 4},
		{Success: false, Data: json.RawMessage(`{ "a" : 1 }`), Error: "boom", ErrorCode: "tool_error", Truncated: true},
		{Success: true},
	} {
		got, err := sessionToolResult(r)
		var want session.ToolResult
		if werr := remarshalAny(r, &want); err != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("copied %+v (%v)\nremarshalled %+v (%v)", got, err, want, werr)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Fatalf("on the wire: %s != %s", a, b)
		}
	}
}
