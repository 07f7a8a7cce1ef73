package op

import (
	"bytes"
	"io"
	"net/http"

	"github.com/sluicehq/sluice/internal/fault"
)

// How much an ApiCall may bring back: a response size limit of its own (the
// server's limits.max_response_bytes, which the operation's maxResponseBytes
// may only lower), and the execution's data budget, charged with the body's
// length before it is read when the response announces it, and with the
// decoded value's size once decoded.

// setMaxResponse takes the operation's maxResponseBytes (0: not set).
func (a *apiCall) setMaxResponse(n int64) error {
	server := a.serverMaxResponse()
	switch {
	case n < 0:
		return invalidConfig(apiBase+".maxResponseBytes", "%s.maxResponseBytes must be at least 1, got %d", apiBase, n)
	case n > server:
		return invalidConfig(apiBase+".maxResponseBytes",
			"%s.maxResponseBytes %d is above this server's response limit of %d bytes", apiBase, n, server).
			WithSuggestions("maxResponseBytes can only lower the limit; leave it out to use the server's")
	}
	a.maxResp = n
	return nil
}

// serverMaxResponse is the server's response body limit (limits.max_response_bytes).
func (a *apiCall) serverMaxResponse() int64 {
	if a.d.Limits.MaxResponseBytes > 0 {
		return a.d.Limits.MaxResponseBytes
	}
	return DefaultLimits().MaxResponseBytes
}

// maxResponse is the response body limit of this operation.
func (a *apiCall) maxResponse() int64 {
	if a.maxResp > 0 {
		return a.maxResp
	}
	return a.serverMaxResponse()
}

// tooLarge is the error of a response over maxResponse, naming the limit.
func (a *apiCall) tooLarge(req *apiRequest, max int64) error {
	limit := "the server's limits.max_response_bytes"
	if a.maxResp > 0 {
		limit = "the operation's maxResponseBytes"
	}
	return fault.Typed(fault.Upstream, fault.ExecutionError, "the response of %s is larger than %d bytes (%s)", a.target(req), max, limit).
		WithDetail("limitBytes", max).
		WithSuggestions("Ask the API for less data (paging, filters, fields)")
}

// readBody reads at most max+1 bytes of the body. A body that announces its
// length is read into one buffer of that size (net/http holds the body to
// it). One that does not (chunked) is read into a buffer that doubles:
// io.ReadAll grows a large slice by a quarter at a time, which allocated
// about five times the body on the way, a doubling buffer about two (issue
// 18 and 27, memory per byte).
func readBody(resp *http.Response, max int64) ([]byte, error) {
	if resp.ContentLength <= 0 || resp.ContentLength > max {
		var buf bytes.Buffer
		_, err := buf.ReadFrom(io.LimitReader(resp.Body, max+1))
		return buf.Bytes(), err
	}
	buf := make([]byte, resp.ContentLength)
	n, err := io.ReadFull(resp.Body, buf)
	return buf[:n], err
}

// chargeBody charges an announced body length before the body is read, so a
// response that cannot fit the data budget is never read.
func (a *apiCall) chargeBody(rc *RunContext, contentLength int64) error {
	if contentLength <= 0 || contentLength > a.maxResponse() {
		return nil // unknown, or refused by decode with the response limit
	}
	return rc.Budget.Charge(rc.OperationID, contentLength)
}
