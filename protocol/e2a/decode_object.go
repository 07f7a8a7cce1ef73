package e2a

import "fmt"

// DecodeObject reads one JSON object as plain values (map[string]any, []any,
// string, float64, bool, nil), by the rules envelopes are read with: a
// duplicate key at any depth, an integer a float64 cannot hold exactly,
// nesting deeper than lim.MaxDepth, anything but an object, and anything
// after it are *Error naming the path and byte offset. It is the decoder of
// every JSON request body (the REST API's as the E2A endpoint's params), so
// no body is read by laxer rules than another. Input is bounded by lim
// (zero: 1 MiB, 64 levels).
func DecodeObject(data []byte, lim Limits) (map[string]any, error) {
	lim = lim.withDefaults(DefaultMaxEnvelopeBytes)
	if len(data) > lim.MaxBytes {
		return nil, &Error{Message: fmt.Sprintf("the object is %d bytes, over the %d-byte limit", len(data), lim.MaxBytes)}
	}
	p := parser{data: data, maxDepth: lim.MaxDepth}
	m, err := p.object()
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}
