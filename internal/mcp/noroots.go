package mcp

import (
	"bytes"
	"encoding/json"
)

// The SDK always sends "roots":{} among the client's capabilities (its
// Roots field is a struct, which encoding/json never omits; go-sdk issue
// #607), which tells a server the client serves roots. This client serves
// none, so the initialize request leaves without it: the stdio connection
// rewrites the request's params (tapConn.Write), the HTTP one the body it
// posts (serverTransport).

// withoutRootsParams returns initialize params without an empty roots
// capability; anything it cannot read goes unchanged.
func withoutRootsParams(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(p["capabilities"], &caps) != nil {
		return params
	}
	if r, ok := caps["roots"]; !ok || !bytes.Equal(bytes.Join(bytes.Fields(r), nil), []byte("{}")) {
		return params
	}
	delete(caps, "roots")
	var err error
	if p["capabilities"], err = json.Marshal(caps); err != nil {
		return params
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// withoutRootsMessage does the same to a whole initialize request.
func withoutRootsMessage(msg []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || string(m["method"]) != `"initialize"` {
		return msg
	}
	m["params"] = withoutRootsParams(m["params"])
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}
