package gateway

import (
	"encoding/json"

	"github.com/sluicehq/sluice/internal/tools"
	"github.com/sluicehq/sluice/protocol/session"
)

// sessionToolResult is a tool call's result as tool/call/resp data. A
// tools.Result is copied field by field and its data encoded once; it is
// not encoded whole to be decoded again into the session's type. Anything
// else (a result another layer made) goes the long way.
func sessionToolResult(v any) (session.ToolResult, error) {
	r, ok := v.(*tools.Result)
	if !ok || r == nil {
		var res session.ToolResult
		err := remarshalAny(v, &res)
		return res, err
	}
	data, err := json.Marshal(r.Data)
	if err != nil {
		return session.ToolResult{}, err
	}
	return session.ToolResult{Success: r.Success, ToolName: r.ToolName, Data: data, Summary: r.Summary,
		Truncated: r.Truncated, Error: r.Error, ErrorCode: r.ErrorCode, DurationMS: r.DurationMs}, nil
}
