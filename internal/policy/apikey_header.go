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

// PresentedKey is the one place an ingress reads the API key a request
// presents: `Authorization: Bearer <key>` (scheme in any case) or
// `X-API-Key: <key>`. Both may be sent if they agree. An Authorization header
// with another scheme is ignored when X-API-Key is present (a proxy may have
// added it) and refused otherwise. Repeated headers, disagreeing keys and a
// missing key are Unauthenticated errors. The text is not parsed: the admin
// key (SLUICE_ADMIN_KEY) may have any form. No message quotes a header value.
func PresentedKey(h http.Header) (string, error) {
	auth, apiKey := h.Values(HeaderAuthorization), h.Values(HeaderAPIKey)
	if len(auth) > 1 || len(apiKey) > 1 {
		return "", authError("send one API key: the request repeats %s", repeated(auth, apiKey))
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
			return "", authError("Authorization and X-API-Key carry different keys; send one")
		}
		return bearer, nil
	case bearerOK:
		return bearer, nil
	case len(apiKey) == 1:
		return fromHeader, nil
	case len(auth) == 1:
		return "", authError("the Authorization header must use the Bearer scheme")
	}
	return "", authError("missing API key")
}

// KeyFromHeader is PresentedKey parsed as a sluice key (see ParseKey): a
// malformed key is an Unauthenticated error too.
func KeyFromHeader(h http.Header) (Key, error) {
	text, err := PresentedKey(h)
	if err != nil {
		return Key{}, err
	}
	return ParseKey(text)
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
