package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

// An unknown parameter's error lists every parameter the method takes and
// suggests the closest, whichever of them the call sent: the method table
// declares them all, where each handler once listed only those it had read
// (an account's name and disabled only when given, so {"nmae": ...} got no
// suggestion).
func TestUnknownParameterNamesEveryParameter(t *testing.T) {
	s := newServer(t)
	r := s.call("POST", "/api/v1/admin/accounts", s.admin, map[string]any{"nmae": "typo"}).want(t, http.StatusBadRequest)
	msg := r.str("error.message")
	if msg != "params.nmae: unknown parameter (this call takes disabled, limits, name, permissions)" ||
		!strings.Contains(string(r.raw), "Did you mean name?") {
		t.Fatalf("%s", r.raw)
	}
	r = s.call("GET", "/api/v1/rate-limit/status?verbose=1", s.admin, nil).want(t, http.StatusBadRequest)
	if r.str("error.message") != "params.verbose: unknown parameter (this call takes no parameters)" {
		t.Fatalf("%s", r.raw)
	}
}
