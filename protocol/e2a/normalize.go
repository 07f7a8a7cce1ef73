package e2a

import (
	"fmt"
	"time"
)

// A2A's SendMessage methods: 1.0's names and 0.3's, streaming or not.
var a2aSendMethods = map[string]bool{
	"SendMessage": false, "SendStreamingMessage": true, // A2A 1.0
	"message/send": false, "message/stream": true, // A2A 0.3
}

// NormalizeOptions are the optional arguments of NormalizeRequest.
type NormalizeOptions struct {
	Now time.Time // provenance.converted_at of converted requests; default time.Now()
}

// NormalizeRequest reads one request in any shape sluice takes and returns it
// as an envelope (`sluice e2a normalize`):
//
//   - a JSON-RPC 2.0 request ("jsonrpc" at the top): an A2A SendMessage (1.0
//     SendMessage / SendStreamingMessage, 0.3 message/send / message/stream)
//     through EnvelopeFromA2A, with the call's id as jsonrpc_id, is_stream for
//     the streaming methods and the method in provenance.details.jsonrpc_method;
//     an ACP client-to-agent method (session/prompt, session/new, ...) or
//     session/cancel through EnvelopeFromACP. Any other method, a response or a
//     method an agent sends to its client is an error naming "method";
//   - an A2A SendMessageRequest on its own ({message, configuration?,
//     metadata?, tenant?}, a "message" object at the top; the body of A2A's
//     HTTP+JSON binding) through EnvelopeFromA2A;
//   - anything else through DecodeEnvelope (current or legacy envelope).
//
// Bounded by lim as DecodeEnvelope is (zero: 1 MiB, 64 levels).
func NormalizeRequest(data []byte, lim Limits, opt NormalizeOptions) (*Envelope, error) {
	top, err := DecodeObject(data, lim)
	if err != nil {
		return nil, err
	}
	if _, ok := top["jsonrpc"]; ok {
		return normalizeJSONRPC(data, lim, opt)
	}
	if _, ok := top["message"]; ok {
		return EnvelopeFromA2A(top, A2AOptions{Now: opt.Now})
	}
	return DecodeEnvelope(data, lim)
}

func normalizeJSONRPC(data []byte, lim Limits, opt NormalizeOptions) (*Envelope, error) {
	m, err := DecodeACPMessage(data, lim)
	if err != nil {
		return nil, err
	}
	if m.IsResponse() {
		return nil, &Error{Path: "method", Message: "is required: a JSON-RPC response is not a request"}
	}
	if stream, ok := a2aSendMethods[m.Method]; ok {
		e, err := EnvelopeFromA2A(m.Params, A2AOptions{Now: opt.Now, ExtraDetails: map[string]any{"jsonrpc_method": m.Method}})
		if err != nil {
			return nil, under(err, "params")
		}
		e.JSONRPCID = m.ID
		e.IsStream = stream
		return e, nil
	}
	if contains(ACPClientToAgentMethods, m.Method) || m.Method == ACPSessionCancel {
		return EnvelopeFromACP(m.Method, m.Params, ACPOptions{JSONRPCID: m.ID, Now: opt.Now}), nil
	}
	known := append([]string{"SendMessage", "SendStreamingMessage", "message/send", "message/stream", ACPSessionCancel}, ACPClientToAgentMethods...)
	return nil, &Error{Path: "method", Message: fmt.Sprintf("%q is neither an A2A SendMessage nor an ACP method a client sends to an agent", m.Method),
		Suggestions: didYouMean(m.Method, known)}
}
