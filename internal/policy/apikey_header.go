package policy

import (
	"net/http"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// Headers that carry an API key.
const (
	HeaderAuthorization = "Authorization"
	HeaderAPIKey        = "X-API-Key"
)

// KeyFromHeader finds the API key of a request: `Authorization: Bearer <key>`
// (scheme in any case) or `X-API-Key: <key>`. Both may be sent if they agree.
// An Authorization header with another scheme is ignored when X-API-Key is
// present (a proxy may have added it) and refused otherwise. Repeated headers,
// disagreeing keys and a missing key are Unauthenticated errors; so is a
// malformed key (see ParseKey). No message quotes a header value.
func KeyFromHeader(h http.Header) (Key, error) {
	auth, apiKey := h.Values(HeaderAuthorization), h.Values(HeaderAPIKey)
	if len(auth) > 1 || len(apiKey) > 1 {
		return Key{}, authError("send one API key: the request repeats %s", repeated(auth, apiKey))
	}
	var bearer, fromHeader string
	var bearerOK bool
	if len(auth) == 1 {
		bearer, bearerOK = bearerToken(auth[0])
	}
	if len(apiKey) == 1 {
		fromHeader = strings.TrimSpace(apiKey[0])
	}
	switch {
	case bearerOK && len(apiKey) == 1:
		if bearer != fromHeader {
			return Key{}, authError("Authorization and X-API-Key carry different keys; send one")
		}
		return ParseKey(bearer)
	case bearerOK:
		return ParseKey(bearer)
	case len(apiKey) == 1:
		return ParseKey(fromHeader)
	case len(auth) == 1:
		return Key{}, authError("the Authorization header must use the Bearer scheme")
	}
	return Key{}, authError("missing API key")
}

// bearerToken splits "Bearer <token>" (RFC 6750: scheme in any case).
func bearerToken(v string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

func repeated(auth, apiKey []string) string {
	if len(auth) > 1 {
		return HeaderAuthorization
	}
	return HeaderAPIKey
}

func authError(format string, args ...any) *fault.Error {
	return fault.Typed(fault.Unauthenticated, fault.PermissionError, format, args...).
		WithSuggestions("Send the key as `Authorization: Bearer <key>` or `X-API-Key: <key>`")
}
