package e2a_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// acpSchemaEnv names the ACP JSON schema, schema/v1/schema.json of the npm
// package @agentclientprotocol/sdk 2.4.0, which .ci/run installs outside the
// repository. Without it the test skips.
const acpSchemaEnv = "SLUICE_TEST_ACP_SCHEMA"

// acpSchema is the ACP schema compiled: the whole-message schema, and each
// method's request, response and notification definitions by method name
// (the definitions carry "x-method").
type acpSchema struct {
	message                       *jsonschema.Schema
	requests, responses, notifies map[string]*jsonschema.Schema
	requestID, errorObj           *jsonschema.Schema
}

func loadACPSchema(t *testing.T) *acpSchema {
	t.Helper()
	path := os.Getenv(acpSchemaEnv)
	if path == "" {
		t.Skipf("%s is not set (.ci/run sets it to schema/v1/schema.json of @agentclientprotocol/sdk 2.4.0)", acpSchemaEnv)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", acpSchemaEnv, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://agentclientprotocol.com/schema/v1/schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	compile := func(ptr string) *jsonschema.Schema {
		s, err := c.Compile(url + ptr)
		if err != nil {
			t.Fatalf("compile %s: %v", ptr, err)
		}
		return s
	}
	s := &acpSchema{message: compile(""), requestID: compile("#/$defs/RequestId"), errorObj: compile("#/$defs/Error"),
		requests: map[string]*jsonschema.Schema{}, responses: map[string]*jsonschema.Schema{}, notifies: map[string]*jsonschema.Schema{}}
	defs, _ := doc.(map[string]any)["$defs"].(map[string]any)
	for name, d := range defs {
		method, _ := d.(map[string]any)["x-method"].(string)
		switch {
		case method == "":
		case strings.HasSuffix(name, "Request"):
			s.requests[method] = compile("#/$defs/" + name)
		case strings.HasSuffix(name, "Response"):
			s.responses[method] = compile("#/$defs/" + name)
		case strings.HasSuffix(name, "Notification"):
			s.notifies[method] = compile("#/$defs/" + name)
		}
	}
	if s.requests["session/prompt"] == nil || s.notifies["session/update"] == nil || s.responses["session/prompt"] == nil {
		t.Fatalf("%s does not look like the ACP schema: no session/prompt or session/update definitions", path)
	}
	return s
}

// validate checks v against sch and reports where it fails.
func validate(t *testing.T, name, what string, sch *jsonschema.Schema, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s: %s is not valid ACP: %v\n%s", name, what, err, b)
	}
}

// asJSON returns v as the generic JSON value a peer reads.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestACPOutputMatchesSchema validates every ACP message sluice writes against
// the ACP schema: the calls ToACPCall makes of every to_acp golden input
// (params against the method's request definition; a notification has no id),
// the responses ResponseToACP makes of every response_to_acp input (the error
// object, or the result against the method's response definition), and the
// session/update notifications SessionUpdateNotification makes of every
// session_update_to_acp input. Calls of methods the schema does not define (a
// gateway method, an ext method) are checked as JSON-RPC only.
func TestACPOutputMatchesSchema(t *testing.T) {
	s := loadACPSchema(t)
	checked := 0
	each := func(dir string, fn func(name string, data []byte)) {
		for path, data := range goldenInputs(t, dir) {
			fn(path, data)
		}
	}
	each("to_acp", func(name string, data []byte) {
		e, err := e2a.DecodeEnvelope(data, e2a.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		call, err := e2a.ToACPCall(e)
		if err != nil {
			return // an error golden: nothing is written
		}
		msg := asJSON(t, call)
		validate(t, name, "the message", s.message, msg)
		params := msg["params"]
		id, hasID := msg["id"]
		switch {
		case s.requests[call.Method] != nil:
			if !hasID {
				t.Errorf("%s: request %s without an id", name, call.Method)
			}
			validate(t, name, "the id", s.requestID, id)
			validate(t, name, call.Method+" params", s.requests[call.Method], params)
			checked++
		case s.notifies[call.Method] != nil:
			if hasID {
				t.Errorf("%s: notification %s with an id (the SDK takes it for a request)", name, call.Method)
			}
			validate(t, name, call.Method+" params", s.notifies[call.Method], params)
			checked++
		}
	})
	each("response_to_acp", func(name string, data []byte) {
		r, err := e2a.DecodeResponse(data, e2a.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		out := e2a.ResponseToACP(r)
		if out == nil {
			return
		}
		msg := asJSON(t, out)
		validate(t, name, "the message", s.message, msg)
		validate(t, name, "the id", s.requestID, msg["id"])
		if errObj, ok := msg["error"]; ok {
			validate(t, name, "the error", s.errorObj, errObj)
		} else {
			validate(t, name, "the session/prompt result", s.responses["session/prompt"], msg["result"])
		}
		checked++
	})
	each("session_update_to_acp", func(name string, data []byte) {
		r, err := e2a.DecodeResponse(data, e2a.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		n := e2a.SessionUpdateNotification(r)
		if n == nil {
			return
		}
		msg := asJSON(t, n)
		if _, hasID := msg["id"]; hasID {
			t.Errorf("%s: session/update with an id (the SDK takes it for a request)", name)
		}
		validate(t, name, "the message", s.message, msg)
		validate(t, name, "session/update params", s.notifies["session/update"], msg["params"])
		checked++
	})
	if checked < 12 {
		t.Fatalf("only %d ACP messages checked", checked)
	}
}
