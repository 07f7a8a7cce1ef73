package validate_test

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/validate"
)

// A bound credential in an ApiCall to a literal host outside its binding is
// a PermissionError before anything runs, naming the credential id and the
// host (never a value); at a bound host, unbound (a record of an earlier
// version), and with a host known only at run time, validation passes (the
// last is checked when the request is sent).
func TestCredentialHostBinding(t *testing.T) {
	bindings := map[string][]string{"api-key-123": {"api.example.com:443"}}
	o := opts()
	o.CredentialHosts = func(id string) []string { return bindings[id] }
	call := func(url string) string {
		return doc(upd("f", `{"ApiCall":{"method":"GET","url":"`+url+`","headers":{"X-Api-Key":{"credentialRef":{"id":"api-key-123"}}},"outputPath":"/workflow/r"}}`), begin("f"))
	}

	r := validate.Document([]byte(call("https://10.0.0.5/x")), o)
	checkProblems(t, "errors", r.Errors, []want{{typ: PE, line: 1, path: `operation.ApiCall.headers["X-Api-Key"].credentialRef.id`, op: "f",
		msg: `credential "api-key-123" is bound to api.example.com:443 and may not be sent to 10.0.0.5:443`, sugg: "bind it"}})
	if !r.Forbidden() {
		t.Fatal("a binding refusal is a 403")
	}
	r = validate.Document([]byte(call("http://api.example.com/x")), o) // port 80: not the bound one
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "api.example.com:80") {
		t.Fatalf("port 80: %s", dump(r.Errors))
	}

	for name, text := range map[string]string{
		"bound host": call("https://api.example.com/x"),
		"run-time host": doc(upd("f", `{"ApiCall":{"method":"GET","url":"https://{/input/host}/x","headers":{"X-Api-Key":{"credentialRef":{"id":"api-key-123"}}},"outputPath":"/workflow/r"}}`),
			begin("f")),
	} {
		if r := validate.Document([]byte(text), o); len(r.Errors) != 0 {
			t.Errorf("%s: %s", name, dump(r.Errors))
		}
	}
	delete(bindings, "api-key-123")
	if r := validate.Document([]byte(call("https://10.0.0.5/x")), o); len(r.Errors) != 0 {
		t.Errorf("unbound: %s", dump(r.Errors))
	}
}
