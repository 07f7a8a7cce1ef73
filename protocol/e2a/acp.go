package e2a

import (
	"fmt"
	"maps"
	"math"
	"time"
)

// Converter names written into provenance.converter by this package's adapters.
const (
	ConverterACP = "sluice/protocol/e2a.EnvelopeFromACP"
	ConverterA2A = "sluice/protocol/e2a.EnvelopeFromA2A"
)

// ACPOptions are the optional arguments of EnvelopeFromACP (the keyword
// arguments of the reference's envelope_from_acp_jsonrpc).
type ACPOptions struct {
	JSONRPCID      ID
	SessionID      string // wins over params.session_id
	Channel        string
	IdentityOrigin IdentityOrigin // default user
	Converter      string         // default ConverterACP
	ExtraDetails   map[string]any // merged into provenance.details
	Now            time.Time      // converted_at; default time.Now()
}

// EnvelopeFromACP turns an ACP JSON-RPC call into an envelope (§8
// envelope_from_acp_jsonrpc): method is the ACP method, params a copy of the
// call's params, provenance acp with details {kind: "jsonrpc_request",
// jsonrpc_method, jsonrpc_id (when not null)} plus ExtraDetails. session_id
// comes from the options, else params.session_id, else params.sessionId (ACP's
// own spelling) when it is a string.
func EnvelopeFromACP(method string, params map[string]any, opt ACPOptions) *Envelope {
	p := maps.Clone(params)
	sid := opt.SessionID
	if sid == "" {
		if s, ok := p["session_id"].(string); ok {
			sid = s
		} else if s, ok := p["sessionId"].(string); ok {
			sid = s
		}
	}
	details := map[string]any{"kind": "jsonrpc_request", "jsonrpc_method": method}
	if !opt.JSONRPCID.IsNull() {
		details["jsonrpc_id"] = opt.JSONRPCID.Value()
	}
	maps.Copy(details, opt.ExtraDetails)
	e := NewEnvelope()
	e.Provenance = Provenance{SourceProtocol: SourceACP, Converter: orDefault(opt.Converter, ConverterACP), ConvertedAt: nowOr(opt.Now), Details: details}
	e.JSONRPCID = opt.JSONRPCID
	e.Method = method
	e.Params = p
	e.SessionID = sid
	e.Channel = opt.Channel
	if opt.IdentityOrigin != "" {
		e.IdentityOrigin = opt.IdentityOrigin
	}
	return e
}

func nowOr(t time.Time) *time.Time {
	if t.IsZero() {
		return Time(time.Now())
	}
	return Time(t)
}

// ACPCall is a JSON-RPC 2.0 call; it is written with "jsonrpc":"2.0" first, in
// the order of spec §11.4.
type ACPCall struct {
	ID     ID // null on a notification
	Method string
	Params map[string]any
}

// IsNotification reports whether c is written as a notification: a null ID
// and a method ACP sends as one (ACPNotificationNames).
func (c ACPCall) IsNotification() bool {
	return c.ID.IsNull() && contains(ACPNotificationNames, c.Method)
}

// MarshalJSON writes {"jsonrpc":"2.0","id":...,"method":...,"params":{...}}.
// A notification has no "id" member at all: JSON-RPC 2.0 and the ACP SDK take
// a call with "id": null for a request and answer it.
func (c ACPCall) MarshalJSON() ([]byte, error) {
	w := encoder{}
	w.raw(`{"jsonrpc":"2.0",`)
	if !c.IsNotification() {
		w.raw(`"id":`)
		w.id(c.ID)
		w.raw(`,`)
	}
	w.raw(`"method":`)
	w.optStr(c.Method)
	w.raw(`,"params":`)
	w.obj(c.Params)
	w.raw("}")
	return w.b, w.err
}

// ToACPCall turns an envelope into the JSON-RPC call an ACP peer receives (§8
// envelope_to_acp_jsonrpc_call): ext_method when method is "ext", params through
// MergeParamsToACPPrompt, the envelope's jsonrpc_id (left out for a
// notification such as session/cancel). Provenance is untouched. A
// session/prompt with nothing to make a prompt of is an error naming
// params.prompt, as ACP requires one. A gateway method such as
// workflow.execute comes out as it is, which a pure ACP peer will not
// understand: map it first (§2).
func ToACPCall(e *Envelope) (ACPCall, error) {
	method := e.Method
	if method == MethodExt && e.ExtMethod != "" {
		method = e.ExtMethod
	}
	params, err := MergeParamsToACPPrompt(e)
	if err != nil {
		return ACPCall{}, err
	}
	if _, ok := params["prompt"]; method == ACPSessionPrompt && !ok {
		return ACPCall{}, &Error{Path: "params.prompt", Message: "session/prompt has no prompt, content_blocks, text, content or query; ACP requires a prompt"}
	}
	return ACPCall{ID: e.JSONRPCID, Method: method, Params: params}, nil
}

// JSON-RPC error code for an e2a.error whose code is not an integer.
const jsonRPCInternalError = -32603

// ResponseToACP projects a frame onto one JSON-RPC 2.0 response object (§8
// e2a_response_to_acp_jsonrpc_response), or returns nil when the frame has none:
//
//   - projections.acp wins when it is {"jsonrpc":"2.0"} with a result or an
//     error (a copy, with id set from jsonrpc_id when it has none);
//   - acp.prompt_result: result is the body;
//   - acp.jsonrpc_error: error is the body;
//   - e2a.error: error {code, message, data}; a code that is not an integer
//     becomes -32603 with the original in data.e2a_code; data also carries
//     details and external when present;
//   - any other kind: nil.
func ResponseToACP(r *Response) map[string]any {
	if proj, ok := r.Projections["acp"].(map[string]any); ok && proj["jsonrpc"] == "2.0" {
		_, hasResult := proj["result"]
		_, hasError := proj["error"]
		if hasResult || hasError {
			out := maps.Clone(proj)
			if _, ok := out["id"]; !ok {
				out["id"] = r.JSONRPCID
			}
			return out
		}
	}
	switch r.Kind {
	case KindACPPromptResult:
		return map[string]any{"jsonrpc": "2.0", "id": r.JSONRPCID, "result": orEmpty(maps.Clone(r.Body))}
	case KindACPJSONRPCError:
		return map[string]any{"jsonrpc": "2.0", "id": r.JSONRPCID, "error": orEmpty(maps.Clone(r.Body))}
	case KindError:
		codeRaw, hasCode := r.Body["code"]
		code, isInt := jsonInt(codeRaw)
		if !isInt {
			code = jsonRPCInternalError
		}
		msg, _ := r.Body["message"].(string)
		data := map[string]any{}
		if d, ok := r.Body["details"]; ok && d != nil {
			data["details"] = d
		}
		if x, ok := r.Body["external"]; ok && x != nil {
			data["external"] = x
		}
		if hasCode && codeRaw != nil && !isInt {
			data["e2a_code"] = codeRaw
		}
		errObj := map[string]any{"code": code, "message": msg}
		if len(data) > 0 {
			errObj["data"] = data
		}
		return map[string]any{"jsonrpc": "2.0", "id": r.JSONRPCID, "error": errObj}
	}
	return nil
}

// SessionUpdateNotification projects an acp.session_update frame onto the ACP
// session/update notification whose params are the body (§12.6), with the
// frame's session_id as params.sessionId when the body has none (ACP requires
// it); nil for any other kind.
func SessionUpdateNotification(r *Response) *ACPCall {
	if r.Kind != KindACPSessionUpdate {
		return nil
	}
	params := maps.Clone(r.Body)
	if _, ok := params["sessionId"]; !ok && r.SessionID != "" {
		if params == nil {
			params = map[string]any{}
		}
		params["sessionId"] = r.SessionID
	}
	return &ACPCall{Method: ACPSessionUpdate, Params: params}
}

// jsonInt returns v as an integer when it is an integral JSON number.
func jsonInt(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < maxExactInt {
			return int64(n), true
		}
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// ACPMessage is one decoded JSON-RPC 2.0 message from an ACP peer: a request
// (ID and Method), a notification (Method, null ID) or a response (ID and
// exactly one of Result and Error).
type ACPMessage struct {
	ID        ID
	Method    string
	Params    map[string]any
	Result    any
	Error     map[string]any
	HasResult bool
}

// IsResponse reports whether m is a response rather than a call.
func (m *ACPMessage) IsResponse() bool { return m.Method == "" }

var acpMessageFields = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// DecodeACPMessage reads one JSON-RPC 2.0 message, bounded by lim (zero: 16 MiB,
// 64 levels). "jsonrpc" must be "2.0"; a call has a string method and object (or
// absent) params; a response has exactly one of result and error, and an error
// has an integer code and a string message.
func DecodeACPMessage(data []byte, lim Limits) (*ACPMessage, error) {
	lim = lim.withDefaults(DefaultMaxResponseBytes)
	if len(data) > lim.MaxBytes {
		return nil, &Error{Message: fmt.Sprintf("message is %d bytes, over the %d-byte limit", len(data), lim.MaxBytes)}
	}
	p := parser{data: data, maxDepth: lim.MaxDepth}
	m := &ACPMessage{}
	var version string
	hasError := false
	err := p.members(func(k []byte, off int) error {
		var err error
		switch string(k) {
		case "jsonrpc":
			version, err = p.str()
		case "id":
			m.ID, err = p.id()
		case "method":
			m.Method, err = p.nonEmpty()
		case "params":
			m.Params, err = p.objectOrNull()
		case "result":
			m.HasResult = true
			m.Result, err = p.value()
		case "error":
			hasError = true
			m.Error, err = p.object()
		default:
			return unknownField(&p, string(k), off, acpMessageFields)
		}
		return err
	})
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, err
	}
	switch {
	case version != "2.0":
		return nil, &Error{Path: "jsonrpc", Message: `must be "2.0"`}
	case m.Method != "" && (m.HasResult || hasError):
		return nil, &Error{Path: "method", Message: "a message has either a method (a call) or a result/error (a response), not both"}
	case m.Method == "" && m.HasResult == hasError:
		return nil, &Error{Path: "result", Message: "a response has exactly one of result and error"}
	case hasError:
		if _, ok := jsonInt(m.Error["code"]); !ok {
			return nil, &Error{Path: "error.code", Message: "must be an integer"}
		}
		if _, ok := m.Error["message"].(string); !ok {
			return nil, &Error{Path: "error.message", Message: "must be a string"}
		}
	}
	return m, nil
}

// FrameFromACP turns a message an ACP agent sent back into the L2 part of a
// frame; a StreamWriter fills in the rest (request id, sequence, the client's
// jsonrpc_id). The agent's own JSON-RPC id belongs to the agent's id space, so
// it goes into the body, never into the frame's jsonrpc_id.
//
//   - a result: final acp.prompt_result, succeeded, body = the result object;
//   - an error: final acp.jsonrpc_error, failed, body = the error object;
//   - a session/update notification: acp.session_update, in progress, body =
//     params, which must hold update.sessionUpdate (a string; kinds newer than
//     ACPSessionUpdateKinds pass through);
//   - any other agent-to-client method (session/request_permission, fs/...,
//     terminal/..., session/elicitation, session/elicitation/complete):
//     acp.output_request, in progress, body {id, method, params};
//   - anything else (a client-to-agent method) is an error.
func FrameFromACP(m *ACPMessage) (*Response, error) {
	if m.IsResponse() {
		if m.HasResult {
			body, ok := m.Result.(map[string]any)
			if !ok && m.Result != nil {
				return nil, &Error{Path: "result", Message: "must be an object to become an acp.prompt_result body"}
			}
			return &Response{IsFinal: true, Status: StatusSucceeded, Kind: KindACPPromptResult, Body: body}, nil
		}
		return &Response{IsFinal: true, Status: StatusFailed, Kind: KindACPJSONRPCError, Body: maps.Clone(m.Error)}, nil
	}
	switch {
	case m.Method == ACPSessionUpdate:
		update, ok := m.Params["update"].(map[string]any)
		if !ok {
			return nil, &Error{Path: "params.update", Message: "must be an object"}
		}
		if k, ok := update["sessionUpdate"].(string); !ok || k == "" {
			return nil, &Error{Path: "params.update.sessionUpdate", Message: "is required", Suggestions: []string{"one of " + joinList(ACPSessionUpdateKinds)}}
		}
		return &Response{Status: StatusInProgress, Kind: KindACPSessionUpdate, Body: maps.Clone(m.Params)}, nil
	case contains(ACPAgentToClientMethods, m.Method) || m.Method == "session/elicitation/complete":
		return &Response{Status: StatusInProgress, Kind: KindACPOutputRequest,
			Body: map[string]any{"id": m.ID.Value(), "method": m.Method, "params": orEmpty(maps.Clone(m.Params))}}, nil
	}
	return nil, &Error{Path: "method", Message: fmt.Sprintf("%q is not a method an ACP agent sends to its client", m.Method),
		Suggestions: didYouMean(m.Method, ACPAgentToClientMethods)}
}
