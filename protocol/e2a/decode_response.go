package e2a

import (
	"fmt"
	"math"
)

var responseFields = []string{
	"protocol_version", "response_id", "request_id", "sequence", "is_final", "status",
	"response_kind", "timestamp", "provenance", "body", "jsonrpc_id",
	"correlation_id", "task_id", "context_id", "session_id", "message_id",
	"is_stream", "identity_origin", "channel", "user_id", "agent_ref",
	"source_agent_id", "method", "projections", "channel_context", "metadata",
	"a2a_metadata", "acp_meta",
	"channel_id",
}

// RequiredResponseFields are the L1 fields §12.4 marks required: a frame
// without one of them (or with null) does not decode.
var RequiredResponseFields = responseFields[:10]

// DecodeResponse reads one frame as DecodeResponseIgnoring does, without
// telling which unknown keys it skipped.
func DecodeResponse(data []byte, lim Limits) (*Response, error) {
	r, _, err := DecodeResponseIgnoring(data, lim)
	return r, err
}

// DecodeResponseIgnoring reads one frame. The ten required fields of §12.4
// must be present and not null, response_id and request_id non-empty, status
// and response_kind in their lists, sequence a non-negative integer;
// timestamps may be epoch seconds; channel_id reads as channel. Unknown keys
// (at the top and in provenance) are skipped, as the reference skips them,
// and their paths returned. Duplicate keys and wrong types are errors
// (*Error) naming the field. The body's shape is not checked here (Check
// does that). Input is bounded by lim (zero: 16 MiB, 64 levels).
func DecodeResponseIgnoring(data []byte, lim Limits) (*Response, []string, error) {
	lim = lim.withDefaults(DefaultMaxResponseBytes)
	if len(data) > lim.MaxBytes {
		return nil, nil, &Error{Message: fmt.Sprintf("frame is %d bytes, over the %d-byte limit", len(data), lim.MaxBytes)}
	}
	p := parser{data: data, maxDepth: lim.MaxDepth}
	r := &Response{ProtocolVersion: ProtocolVersion, Status: StatusInProgress, IdentityOrigin: OriginAgent, Provenance: Provenance{SourceProtocol: SourceE2A}}
	var seen [10]bool
	var channelID string
	var channelOff int
	err := p.members(func(k []byte, off int) error {
		if i := requiredIndex(string(k)); i >= 0 {
			seen[i] = true
			if p.peek() == 'n' {
				return p.errAt(p.pos, "is required and must not be null")
			}
		}
		var err error
		switch string(k) {
		case "protocol_version":
			err = p.version(&r.ProtocolVersion)
		case "response_id":
			r.ResponseID, err = p.nonEmpty()
		case "request_id":
			r.RequestID, err = p.nonEmpty()
		case "sequence":
			r.Sequence, err = p.sequence()
		case "is_final":
			r.IsFinal, err = p.optBool()
		case "status":
			off := p.pos
			var s string
			if s, err = p.str(); err == nil {
				if r.Status = Status(s); !r.Status.Valid() {
					err = p.enumError(off, s, []string{"succeeded", "failed", "in_progress"})
				}
			}
		case "response_kind":
			off := p.pos
			var s string
			if s, err = p.str(); err == nil {
				if r.Kind = Kind(s); !r.Kind.Valid() {
					err = p.enumError(off, s, kindNames())
				}
			}
		case "timestamp":
			r.Timestamp, err = p.optTime()
		case "provenance":
			r.Provenance, err = p.provenance("provenance")
		case "body":
			r.Body, err = p.objectOrNull()
		case "jsonrpc_id":
			r.JSONRPCID, err = p.id()
		case "correlation_id":
			r.CorrelationID, err = p.optString()
		case "task_id":
			r.TaskID, err = p.optString()
		case "context_id":
			r.ContextID, err = p.optString()
		case "session_id":
			r.SessionID, err = p.optString()
		case "message_id":
			r.MessageID, err = p.optString()
		case "is_stream":
			r.IsStream, err = p.optBool()
		case "identity_origin":
			err = p.origin(&r.IdentityOrigin)
		case "channel":
			r.Channel, err = p.optString()
		case "user_id":
			r.UserID, err = p.optString()
		case "agent_ref":
			r.AgentRef, err = p.agentRef()
		case "source_agent_id":
			r.SourceAgentID, err = p.optString()
		case "method":
			r.Method, err = p.optString()
		case "projections":
			r.Projections, err = p.objectOrNull()
		case "channel_context":
			r.ChannelContext, err = p.objectOrNull()
		case "metadata":
			r.Metadata, err = p.objectOrNull()
		case "a2a_metadata":
			r.A2AMetadata, err = p.objectOrNull()
		case "acp_meta":
			r.ACPMeta, err = p.objectOrNull()
		case "channel_id":
			channelOff = off
			channelID, err = p.optString()
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
	for i, ok := range seen {
		if !ok {
			return nil, nil, &Error{Path: RequiredResponseFields[i], Message: "is required (spec §12.4)"}
		}
	}
	switch {
	case r.Channel == "":
		r.Channel = channelID
	case channelID != "" && channelID != r.Channel:
		return nil, nil, &Error{Path: "channel_id", Offset: channelOff, Message: fmt.Sprintf("conflicts with channel %q; send only channel", r.Channel)}
	}
	return r, p.ignored, nil
}

func requiredIndex(key string) int {
	for i, k := range RequiredResponseFields {
		if k == key {
			return i
		}
	}
	return -1
}

func kindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k)
	}
	return out
}

// nonEmpty reads a string that must not be empty.
func (p *parser) nonEmpty() (string, error) {
	off := p.pos
	s, err := p.str()
	if err == nil && s == "" {
		err = p.errAt(off, "must not be empty")
	}
	return s, err
}

// sequence reads a non-negative integer.
func (p *parser) sequence() (int64, error) {
	off := p.pos
	if c := p.peek(); !(c == '-' || c >= '0' && c <= '9') {
		return 0, p.errAt(off, "must be a non-negative integer, got %s", p.kindAt())
	}
	f, err := p.number()
	if err != nil {
		return 0, err
	}
	if f < 0 || f != math.Trunc(f) {
		return 0, p.errAt(off, "must be a non-negative integer")
	}
	return int64(f), nil
}
