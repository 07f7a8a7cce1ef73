package e2a

import (
	"fmt"
	"maps"
	"time"
)

// A2AOptions are the optional arguments of EnvelopeFromA2A (the keyword
// arguments of the reference's envelope_from_a2a_send_message).
type A2AOptions struct {
	TaskID, ContextID string // default: the message's taskId / contextId
	Channel           string
	IdentityOrigin    IdentityOrigin // default user
	Converter         string         // default ConverterA2A
	ExtraDetails      map[string]any
	Now               time.Time // converted_at; default time.Now()
}

// EnvelopeFromA2A turns the params of an A2A SendMessage request ({message,
// configuration?, metadata?}) into an envelope (§8
// envelope_from_a2a_send_message): method session/prompt, params {message,
// configuration}, expected_output_modes from configuration.acceptedOutputModes,
// a2a_metadata from metadata (A2A's, never the gateway's), provenance a2a with
// details {kind: "a2a_send_message", abstract_operation: "SendMessage"}.
// Beyond the reference, task_id and context_id fall back to the message's
// taskId / contextId and message_id is the message's messageId, the meaning §4.1
// gives those fields; and a message or configuration written to A2A 0.3 (kind
// discriminators, lowercase roles, "blocking") is rewritten as A2A 1.0 (see
// a2aV1; no id is minted here), with provenance.details.a2a_version "0.3", so
// what follows reads one shape.
func EnvelopeFromA2A(req map[string]any, opt A2AOptions) (*Envelope, error) {
	msg, ok := req["message"].(map[string]any)
	if !ok {
		return nil, &Error{Path: "message", Message: "is required and must be an A2A Message object"}
	}
	var cfg, meta map[string]any
	for key, dst := range map[string]*map[string]any{"configuration": &cfg, "metadata": &meta} {
		switch v := req[key].(type) {
		case nil:
		case map[string]any:
			*dst = v
		default:
			return nil, &Error{Path: key, Message: "must be an object"}
		}
	}
	for key := range req {
		if key != "message" && key != "configuration" && key != "metadata" && key != "tenant" {
			return nil, &Error{Path: key, Message: "unknown field of a SendMessage request", Suggestions: didYouMean(key, []string{"message", "configuration", "metadata"})}
		}
	}
	var modes []string
	if raw, ok := cfg["acceptedOutputModes"]; ok && raw != nil {
		list, ok := raw.([]any)
		if !ok {
			return nil, &Error{Path: "configuration.acceptedOutputModes", Message: "must be an array of strings"}
		}
		for i, x := range list {
			s, ok := x.(string)
			if !ok {
				return nil, &Error{Path: fmt.Sprintf("configuration.acceptedOutputModes[%d]", i), Message: "must be a string"}
			}
			modes = append(modes, s)
		}
	}
	details := map[string]any{"kind": "a2a_send_message", "abstract_operation": "SendMessage"}
	if a2aIsV03(msg, cfg) {
		details["a2a_version"] = "0.3"
	}
	maps.Copy(details, opt.ExtraDetails)
	e := NewEnvelope()
	e.Provenance = Provenance{SourceProtocol: SourceA2A, Converter: orDefault(opt.Converter, ConverterA2A), ConvertedAt: nowOr(opt.Now), Details: details}
	e.Method = ACPSessionPrompt
	e.TaskID = orDefault(opt.TaskID, str(msg, "taskId", "task_id"))
	e.ContextID = orDefault(opt.ContextID, str(msg, "contextId", "context_id"))
	e.MessageID = str(msg, "messageId", "message_id")
	e.Channel = opt.Channel
	if opt.IdentityOrigin != "" {
		e.IdentityOrigin = opt.IdentityOrigin
	}
	e.ExpectedOutputModes = modes
	e.Params = map[string]any{"message": a2aV1{}.message(msg, "", ""), "configuration": orEmpty(a2aV1Config(cfg))}
	if len(meta) > 0 {
		e.A2AMetadata = maps.Clone(meta)
	}
	return e, nil
}

// str returns the first of keys in m that holds a string.
func str(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}

// a2aIsV03 reports whether a SendMessage request was written to A2A 0.3: its
// message (or a part) has a kind discriminator or a lowercase role, or its
// configuration says "blocking".
func a2aIsV03(msg, cfg map[string]any) bool {
	if _, ok := msg["kind"]; ok {
		return true
	}
	if role, _ := msg["role"].(string); role == "user" || role == "agent" {
		return true
	}
	if parts, ok := msg["parts"].([]any); ok {
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok && pm["kind"] != nil {
				return true
			}
		}
	}
	_, blocking := cfg["blocking"]
	return blocking
}

// a2aV1Config rewrites an A2A 0.3 MessageSendConfiguration's "blocking" as
// 1.0's "returnImmediately" (its negation) and "pushNotificationConfig" as
// "taskPushNotificationConfig"; every other key is kept.
func a2aV1Config(cfg map[string]any) map[string]any {
	out := maps.Clone(cfg)
	if b, ok := out["blocking"].(bool); ok {
		delete(out, "blocking")
		if _, set := out["returnImmediately"]; !set {
			out["returnImmediately"] = !b
		}
	}
	if pc, ok := out["pushNotificationConfig"]; ok {
		delete(out, "pushNotificationConfig")
		if _, set := out["taskPushNotificationConfig"]; !set {
			out["taskPushNotificationConfig"] = pc
		}
	}
	return out
}
