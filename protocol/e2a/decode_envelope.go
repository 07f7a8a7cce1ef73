package e2a

import "fmt"

// envelopeFields are the keys an envelope may have: its own fields, then the
// legacy keys read for compatibility (spec §9 and §10, and the reference's
// app_id and workspace_dir). Other keys are skipped and reported.
var envelopeFields = []string{
	"protocol_version", "provenance", "request_id", "jsonrpc_id", "correlation_id",
	"task_id", "context_id", "session_id", "message_id", "timestamp",
	"identity_origin", "channel", "user_id", "agent_ref", "chat_id",
	"source_agent_id", "agent_id", "service_id", "workspace_key", "method",
	"params", "ext_method", "session_update_kind", "is_stream",
	"expected_output_modes", "auth", "channel_context", "a2a_metadata", "acp_meta",
	"channel_id", "req_method", "payload", "binding", "metadata", "app_id", "workspace_dir",
}

// legacy holds the compatibility keys until every field is read.
type legacy struct {
	channelID, reqMethod, workspaceDir  string
	channelOff, methodOff, workspaceOff int
	payload, metadata                   map[string]any
	binding                             string
	hasBinding                          bool
	appID                               any
}

// DecodeEnvelope reads one envelope as DecodeEnvelopeIgnoring does, without
// telling which unknown keys it skipped.
func DecodeEnvelope(data []byte, lim Limits) (*Envelope, error) {
	e, _, err := DecodeEnvelopeIgnoring(data, lim)
	return e, err
}

// DecodeEnvelopeIgnoring reads one envelope in the current shape, the legacy
// AgentRequest shape, or any mix, and returns it normalized, with the paths
// of the unknown keys it skipped ("x-trace", "provenance.hint"), so that the
// caller may log them; the codec itself logs nothing. As the reference,
// which reads the keys it knows and ignores the rest:
//
//   - agent_id, service_id and workspace_key are read trimmed of white space,
//     blank meaning null; agent_id falls back to source_agent_id and
//     workspace_key to the legacy workspace_dir;
//   - channel_id reads as channel, req_method as method and workspace_dir as
//     workspace_key (a conflicting value in both is an error rather than a
//     silent choice);
//   - a top-level payload object is merged into params without overwriting,
//     skipping null, [] and {} values;
//   - binding moves to provenance.details.migrated_from_binding (and "acp" or
//     "a2a" becomes the source protocol of an e2a-sourced envelope);
//   - top-level metadata is merged into channel_context key by key, existing
//     keys winning and codec-internal keys skipped; then a non-empty app_id
//     becomes channel_context.app_id unless that key is already there;
//   - epoch-seconds timestamps become RFC 3339 UTC, exact to the microsecond.
//
// Unknown keys are skipped at the top and inside provenance, auth and an
// object binding (their values must still be JSON without duplicate keys).
// Duplicate keys, values of the wrong type in a known field, an
// identity_origin or session_update_kind outside its list, "ext" without
// ext_method and a file reference without uri are errors (*Error) naming the
// field. Input is bounded by lim (zero: 1 MiB, 64 levels).
func DecodeEnvelopeIgnoring(data []byte, lim Limits) (*Envelope, []string, error) {
	lim = lim.withDefaults(DefaultMaxEnvelopeBytes)
	if len(data) > lim.MaxBytes {
		return nil, nil, &Error{Message: fmt.Sprintf("envelope is %d bytes, over the %d-byte limit", len(data), lim.MaxBytes)}
	}
	p := parser{data: data, maxDepth: lim.MaxDepth}
	e := NewEnvelope()
	var lg legacy
	err := p.members(func(k []byte, off int) error {
		var err error
		switch string(k) {
		case "protocol_version":
			err = p.version(&e.ProtocolVersion)
		case "provenance":
			e.Provenance, err = p.provenance("provenance")
		case "request_id":
			e.RequestID, err = p.optString()
		case "jsonrpc_id":
			e.JSONRPCID, err = p.id()
		case "correlation_id":
			e.CorrelationID, err = p.optString()
		case "task_id":
			e.TaskID, err = p.optString()
		case "context_id":
			e.ContextID, err = p.optString()
		case "session_id":
			e.SessionID, err = p.optString()
		case "message_id":
			e.MessageID, err = p.optString()
		case "timestamp":
			e.Timestamp, err = p.optTime()
		case "identity_origin":
			err = p.origin(&e.IdentityOrigin)
		case "channel":
			e.Channel, err = p.optString()
		case "user_id":
			e.UserID, err = p.optString()
		case "agent_ref":
			e.AgentRef, err = p.agentRef()
		case "chat_id":
			e.ChatID, err = p.optString()
		case "source_agent_id":
			e.SourceAgentID, err = p.optString()
		case "agent_id":
			e.AgentID, err = p.trimmedString()
		case "service_id":
			e.ServiceID, err = p.trimmedString()
		case "workspace_key":
			e.WorkspaceKey, err = p.trimmedString()
		case "method":
			e.Method, err = p.optString()
		case "params":
			e.Params, err = p.objectOrNull()
		case "ext_method":
			e.ExtMethod, err = p.optString()
		case "session_update_kind":
			off := p.pos
			if e.SessionUpdateKind, err = p.optString(); err == nil && e.SessionUpdateKind != "" && !contains(ACPSessionUpdateKinds, e.SessionUpdateKind) {
				err = p.enumError(off, e.SessionUpdateKind, ACPSessionUpdateKinds)
			}
		case "is_stream":
			e.IsStream, err = p.optBool()
		case "expected_output_modes":
			e.ExpectedOutputModes, err = p.strList()
		case "auth":
			e.Auth, err = p.auth()
		case "channel_context":
			e.ChannelContext, err = p.objectOrNull()
		case "a2a_metadata":
			e.A2AMetadata, err = p.objectOrNull()
		case "acp_meta":
			e.ACPMeta, err = p.objectOrNull()
		case "channel_id":
			lg.channelOff = off
			lg.channelID, err = p.optString()
		case "req_method":
			lg.methodOff = off
			lg.reqMethod, err = p.optString()
		case "workspace_dir":
			lg.workspaceOff = off
			lg.workspaceDir, err = p.trimmedString()
		case "payload":
			lg.payload, err = p.objectOrNull()
		case "binding":
			lg.hasBinding, err = p.binding(&lg.binding)
		case "metadata":
			lg.metadata, err = p.objectOrNull()
		case "app_id":
			lg.appID, err = p.value()
		default:
			return p.skipUnknown("", k)
		}
		return err
	})
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, nil, err
	}
	if err := lg.apply(e); err != nil {
		return nil, nil, err
	}
	if err := e.Validate(); err != nil {
		return nil, nil, err
	}
	return e, p.ignored, nil
}

// apply carries the legacy keys into the envelope's own fields.
func (lg *legacy) apply(e *Envelope) error {
	switch {
	case e.Channel == "":
		e.Channel = lg.channelID
	case lg.channelID != "" && lg.channelID != e.Channel:
		return &Error{Path: "channel_id", Offset: lg.channelOff, Message: fmt.Sprintf("conflicts with channel %q; send only channel", e.Channel)}
	}
	switch {
	case e.Method == "":
		e.Method = lg.reqMethod
	case lg.reqMethod != "" && lg.reqMethod != e.Method:
		return &Error{Path: "req_method", Offset: lg.methodOff, Message: fmt.Sprintf("conflicts with method %q; send only method", e.Method)}
	}
	switch {
	case e.WorkspaceKey == "":
		e.WorkspaceKey = lg.workspaceDir
	case lg.workspaceDir != "" && lg.workspaceDir != e.WorkspaceKey:
		return &Error{Path: "workspace_dir", Offset: lg.workspaceOff, Message: "conflicts with workspace_key; send only workspace_key"}
	}
	if e.AgentID == "" { // the reference's fallback: agent_id, else source_agent_id
		e.AgentID = trimSpace(e.SourceAgentID)
	}
	for k, v := range lg.payload {
		if _, ok := e.Params[k]; ok || isEmptyValue(v) {
			continue
		}
		if e.Params == nil {
			e.Params = map[string]any{}
		}
		e.Params[k] = v
	}
	if lg.hasBinding {
		if e.Provenance.Details["migrated_from_binding"] == nil { // an earlier migration wins
			if e.Provenance.Details == nil {
				e.Provenance.Details = map[string]any{}
			}
			e.Provenance.Details["migrated_from_binding"] = lg.binding
			if e.Provenance.SourceProtocol == SourceE2A && (lg.binding == SourceACP || lg.binding == SourceA2A) {
				e.Provenance.SourceProtocol = lg.binding
			}
		}
	}
	for k, v := range lg.metadata {
		if isInternalMetadataKey(k) {
			continue
		}
		if _, ok := e.ChannelContext[k]; ok {
			continue
		}
		if e.ChannelContext == nil {
			e.ChannelContext = map[string]any{}
		}
		e.ChannelContext[k] = v
	}
	if _, ok := e.ChannelContext["app_id"]; !ok && isTruthy(lg.appID) {
		if e.ChannelContext == nil {
			e.ChannelContext = map[string]any{}
		}
		e.ChannelContext["app_id"] = lg.appID
	}
	return nil
}

// isTruthy is Python's truth test on a JSON value, which is how the reference
// decides whether an app_id is there: null, false, 0, "", [] and {} are not.
func isTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return !isEmptyValue(v)
}

// isEmptyValue is the payload merge's "nothing there": null, [] or {}.
func isEmptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// Validate checks what a decoded envelope must satisfy beyond its JSON types:
// identity_origin and session_update_kind in their lists, protocol 1.x,
// ext_method with "ext", and params.files / params.attachments as file
// references. Envelopes built in code can be checked the same way.
func (e *Envelope) Validate() error {
	if e.ProtocolVersion != "" && !checkVersion(e.ProtocolVersion) {
		return &Error{Path: "protocol_version", Message: fmt.Sprintf("%q is not supported: this codec reads 1.x", e.ProtocolVersion)}
	}
	if e.IdentityOrigin != "" && !e.IdentityOrigin.Valid() {
		return &Error{Path: "identity_origin", Message: fmt.Sprintf("%q is not one of system, user, agent, service", e.IdentityOrigin)}
	}
	if e.SessionUpdateKind != "" && !contains(ACPSessionUpdateKinds, e.SessionUpdateKind) {
		return &Error{Path: "session_update_kind", Message: fmt.Sprintf("%q is not an ACP session update kind", e.SessionUpdateKind),
			Suggestions: didYouMean(e.SessionUpdateKind, ACPSessionUpdateKinds)}
	}
	if e.Method == MethodExt && e.ExtMethod == "" {
		return &Error{Path: "ext_method", Message: `is required when method is "ext"`}
	}
	for _, key := range []string{"files", "attachments"} {
		if v, ok := e.Params[key]; ok && v != nil {
			if _, err := FileRefsOf(v, "params."+key); err != nil {
				return err
			}
		}
	}
	return nil
}

// version reads protocol_version: a 1.x string; null reads as "1.0".
func (p *parser) version(dst *string) error {
	off := p.pos
	v, err := p.optString()
	if err != nil {
		return err
	}
	if v == "" {
		*dst = ProtocolVersion
		return nil
	}
	if !checkVersion(v) {
		return p.errAt(off, "%q is not supported: this codec reads 1.x", v)
	}
	*dst = v
	return nil
}

// origin reads identity_origin; null keeps the default, and any string
// outside the list, "" included, is an error (R: anything else is an error).
func (p *parser) origin(dst *IdentityOrigin) error {
	off := p.pos
	if p.peek() == 'n' {
		return p.null()
	}
	if p.peek() != '"' {
		return p.errAt(off, "must be a string or null, got %s", p.kindAt())
	}
	v, err := p.str()
	if err != nil {
		return err
	}
	o := IdentityOrigin(v)
	if !o.Valid() {
		return p.enumError(off, v, []string{"system", "user", "agent", "service"})
	}
	*dst = o
	return nil
}

func (p *parser) enumError(off int, v string, list []string) *Error {
	e := p.errAt(off, "%q is not one of %s", v, joinList(list))
	e.Suggestions = didYouMean(v, list)
	return e
}

func joinList(list []string) string {
	out := ""
	for i, s := range list {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// agentRef reads an object or null; unlike the other maps {} stays {}.
func (p *parser) agentRef() (map[string]any, error) {
	if p.peek() == 'n' {
		return nil, p.null()
	}
	return p.object()
}

// binding reads the legacy binding: a string, or {"value": string|null}. null
// means no binding.
func (p *parser) binding(dst *string) (bool, error) {
	switch p.peek() {
	case 'n':
		return false, p.null()
	case '"':
		s, err := p.str()
		*dst = s
		return true, err
	case '{':
		found := false
		err := p.members(func(k []byte, off int) error {
			if string(k) != "value" {
				return p.skipUnknown("binding", k)
			}
			found = true
			s, err := p.optString()
			*dst = s
			return err
		})
		if err == nil && !found {
			return false, p.errAt(p.pos, `an object binding needs a "value"`)
		}
		return true, err
	}
	return false, p.errAt(p.pos, "must be a string, an object with \"value\" or null, got %s", p.kindAt())
}
