package mcp

import (
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
)

// serverTransport is the round tripper of one URL server's connection.
// Under the egress transport (the server's rule, checked at dial time), it
//   - sends the registration's credential headers to the server's origin
//     only: a redirect elsewhere goes without them;
//   - lets a request leave for another host (an OAuth authorization server)
//     only when the account's hosts grant covers it;
//   - sends an OAuth token request (a form POST, which carries the client
//     secret) only to a host the secret is bound to, when it is bound;
//   - taps event-stream bodies for progress notifications (sseTap).
type serverTransport struct {
	base     http.RoundTripper
	origin   string
	auth     *serverAuth
	hosts    policy.Permissions // the account's grants when the connection was made
	progress *progressRoutes
	tasks    *taskTools
}

func (t *serverTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	host, port := endpoint(req.URL.String())
	sameOrigin := origin(req.URL) == t.origin
	if !sameOrigin && !t.hosts.AllowsHost(host, port) {
		return nil, fault.New(fault.PermissionDenied, "the MCP server's authorization sent sluice to %s, which is not in this account's hosts", host).
			WithDetail("host", host).WithSuggestions("Ask an admin to grant the authorization server's host")
	}
	if isTokenRequest(req) && t.auth.oauthSecret != "" && !policy.CredentialMaySend(t.auth.secretHosts, host, port) {
		return nil, policy.CredentialHostDenied("oauth.clientSecret", t.auth.secretHosts, host, port)
	}
	if sameOrigin && len(t.auth.headers) > 0 {
		req = req.Clone(req.Context())
		for name, v := range t.auth.headers {
			req.Header[name] = v
		}
	}
	if sameOrigin && req.Method == http.MethodPost && req.GetBody != nil && req.ContentLength > 0 && req.ContentLength < 1<<20 {
		req = initializeWithoutRoots(req)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp == nil {
		return resp, err
	}
	if resp.Body != nil {
		switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt {
		case "text/event-stream":
			resp.Body = &sseTap{body: resp.Body, seen: t.seen}
		case "application/json":
			resp.Body = &jsonTap{body: resp.Body, seen: t.tasks.sawMessage}
		}
	}
	return resp, nil
}

// seen is one message of an event stream.
func (t *serverTransport) seen(msg []byte) {
	if bytes.Contains(msg, []byte(progressMethod)) {
		t.progress.arrivedRaw(msg)
	}
	t.tasks.sawMessage(msg)
}

// isTokenRequest is a request of the OAuth token endpoint's form.
func isTokenRequest(req *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	return req.Method == http.MethodPost && mt == "application/x-www-form-urlencoded"
}

// httpClientFor is the HTTP client of one URL server's connection: the
// registry's (egress) client with serverTransport around its transport.
func (r *Registry) httpClientFor(rt *serverTransport) *http.Client {
	base := *r.o.HTTPClient
	rt.base = base.Transport
	if rt.base == nil {
		rt.base = http.DefaultTransport
	}
	base.Transport = rt
	return &base
}

// initializeWithoutRoots rewrites the body of an initialize request (see
// withoutRootsParams); any other request goes unchanged.
func initializeWithoutRoots(req *http.Request) *http.Request {
	rc, err := req.GetBody()
	if err != nil {
		return req
	}
	body, err := io.ReadAll(io.LimitReader(rc, req.ContentLength+1))
	rc.Close()
	if err != nil || !bytes.Contains(body, []byte(`"initialize"`)) {
		return req
	}
	out := withoutRootsMessage(body)
	if bytes.Equal(out, body) {
		return req
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(out))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	req.ContentLength = int64(len(out))
	return req
}
