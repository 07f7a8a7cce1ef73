package agenthttp_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// FuzzDecodeWorkflow: no panic; a failure is a well-formed *Error; a
// workflow that decodes validates, encodes, and decodes again to the same
// bytes, and rendering the start step's input never panics.
func FuzzDecodeWorkflow(f *testing.F) {
	seed(f, "workflow")
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := agenthttp.DecodeWorkflow(data, agenthttp.Limits{MaxDepth: 16})
		if err != nil {
			checkErr(t, data, err)
			return
		}
		if err := w.Validate(func(string) (bool, error) { return true, nil }); err != nil {
			t.Fatalf("a decoded workflow does not validate: %v", err)
		}
		if err := w.CheckNestedRefs(); err != nil {
			checkErr(t, data, err)
		}
		enc, err := agenthttp.EncodeWorkflow(w)
		if err != nil {
			t.Fatalf("a decoded workflow does not encode: %v", err)
		}
		again, err := agenthttp.DecodeWorkflow(enc, agenthttp.Limits{})
		if err != nil {
			t.Fatalf("an encoded workflow does not decode: %v\n%s", err, enc)
		}
		if enc2, _ := agenthttp.EncodeWorkflow(again); !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip differs:\n%s\n%s", enc, enc2)
		}
		if len(w.Order()) != len(w.Steps) {
			t.Fatalf("order %v does not cover %d steps", w.Order(), len(w.Steps))
		}
		outputs := map[string]json.RawMessage{}
		for _, id := range w.Order() {
			in, err := w.Steps[id].RenderInput(json.RawMessage(`{"a":[1,"x"],"b":{"c":null}}`), outputs)
			if err == nil && !json.Valid(in) {
				t.Fatalf("step %s rendered invalid JSON %q", id, in)
			}
			outputs[id] = json.RawMessage(`{"a":[1,"x"],"b":"text"}`)
		}
	})
}

// FuzzParseTemplate: no panic; a parsed template's references print back
// to references that parse to the same thing.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"${workflow.input}", "${a.output.b[0].c}", "x ${workflow.input.y} z", "$${lit}",
		"${a.output", "${a.output.[0]}", "${.input}", "${a.output.b[01]}", "${workflow.input.k}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := agenthttp.ParseTemplate(s)
		if err != nil {
			if _, ok := err.(*agenthttp.Error); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		for _, r := range tm.Refs() {
			again, err := agenthttp.ParseTemplate(r.String())
			if err != nil || !again.Whole() || again.Refs()[0].String() != r.String() {
				t.Fatalf("%q: ref %s does not parse back: %v", s, r, err)
			}
		}
		v, err := tm.Render(func(string) (json.RawMessage, bool) { return json.RawMessage(`{"b":[{"c":1}],"k":"v"}`), true })
		if err == nil && !json.Valid(v) {
			t.Fatalf("%q rendered invalid JSON %q", s, v)
		}
	})
}
