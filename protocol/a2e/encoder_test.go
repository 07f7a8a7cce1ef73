package a2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// assertSameWorkflow compares two workflows apart from line numbers and the
// Legacy mark.
func assertSameWorkflow(t *testing.T, a, b *a2e.Workflow) {
	t.Helper()
	if !slices.Equal(a.Defined, b.Defined) {
		t.Fatalf("Defined %v != %v", a.Defined, b.Defined)
	}
	if len(a.Operations) != len(b.Operations) {
		t.Fatalf("%d operations != %d", len(a.Operations), len(b.Operations))
	}
	for id, da := range a.Operations {
		db := b.Operations[id]
		if db == nil || da.ID != db.ID || da.Operation.Name != db.Operation.Name || !sameJSON(t, da.Operation.Config, db.Operation.Config) {
			t.Errorf("operation %s: %+v != %+v", id, da, db)
		}
	}
	ba, bb := a.Begin, b.Begin
	if ba.ExecutionID != bb.ExecutionID || !slices.Equal(ba.OperationOrder, bb.OperationOrder) || ba.OnError != bb.OnError {
		t.Errorf("begin %+v != %+v", ba, bb)
	}
}

func TestEncodeMessage(t *testing.T) {
	var buf bytes.Buffer
	enc := a2e.NewEncoder(&buf)
	msgs := []a2e.Message{
		{OperationUpdate: &a2e.OperationUpdate{OperationID: "op-1", Operation: a2e.Operation{Name: "ApiCall",
			Config: json.RawMessage(`{ "method": "GET", "url": "https://x.test/?a=1&b=<2>", "outputPath": "/workflow/x" }`)}}},
		{OperationUpdate: &a2e.OperationUpdate{OperationID: "w", Operation: a2e.Operation{Name: "Wait"}}},
		{BeginExecution: &a2e.BeginExecution{ExecutionID: "e", OperationOrder: []string{"op-1", "w"}}},
		{BeginExecution: &a2e.BeginExecution{ExecutionID: "e2", OperationOrder: []string{"w"}, OnError: a2e.OnErrorContinue}},
	}
	for _, m := range msgs {
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"type":"operationUpdate","operationId":"op-1","operation":{"ApiCall":{"method":"GET","url":"https://x.test/?a=1&b=<2>","outputPath":"/workflow/x"}}}
{"type":"operationUpdate","operationId":"w","operation":{"Wait":{}}}
{"type":"beginExecution","executionId":"e","operationOrder":["op-1","w"]}
{"type":"beginExecution","executionId":"e2","operationOrder":["w"],"onError":"continue"}
`
	if buf.String() != want {
		t.Errorf("encoded:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// TestEncodeDecodeRoundTrip: Decode(Encode(x)) == x for every kind of message.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	msgs := []a2e.Message{
		{OperationUpdate: &a2e.OperationUpdate{OperationID: "fetch_1-x", Operation: a2e.Operation{Name: "ApiCall",
			Config: json.RawMessage(`{"method":"POST","url":"https://x.test/{/workflow/id}","body":{"q":"\u00e9\n\"quoted\"","n":[1,2.5,null,true]},"outputPath":"/workflow/r"}`)}}},
		{OperationUpdate: &a2e.OperationUpdate{OperationID: "u", Operation: a2e.Operation{Name: "Unknown", Config: json.RawMessage(`{"x":{}}`)}}},
		{BeginExecution: &a2e.BeginExecution{ExecutionID: "e", OperationOrder: []string{"fetch_1-x", "u"}, OnError: "stop"}},
	}
	for i, m := range msgs {
		var buf bytes.Buffer
		if err := a2e.NewEncoder(&buf).Encode(m); err != nil {
			t.Fatal(err)
		}
		if strings.Count(buf.String(), "\n") != 1 || !strings.HasSuffix(buf.String(), "\n") {
			t.Errorf("message %d is not one line: %q", i, buf.String())
		}
		d := a2e.NewDecoder(&buf, a2e.Limits{})
		got, err := d.Next()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		m.Line = 1
		if m.OperationUpdate != nil {
			var c bytes.Buffer
			_ = json.Compact(&c, m.OperationUpdate.Operation.Config)
			m.OperationUpdate.Operation.Config = c.Bytes()
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("message %d: decoded %+v, want %+v", i, got, m)
		}
		if _, err := d.Next(); err != io.EOF {
			t.Errorf("message %d: more than one message: %v", i, err)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []a2e.Message{
		{},
		{OperationUpdate: &a2e.OperationUpdate{OperationID: "a"}, BeginExecution: &a2e.BeginExecution{}},
		{OperationUpdate: &a2e.OperationUpdate{OperationID: "a"}},
		{OperationUpdate: &a2e.OperationUpdate{OperationID: "a", Operation: a2e.Operation{Name: "Wait", Config: json.RawMessage(`{bad`)}}},
	}
	for i, m := range cases {
		var buf bytes.Buffer
		if err := a2e.NewEncoder(&buf).Encode(m); err == nil {
			t.Errorf("case %d: no error", i)
		}
		if buf.Len() != 0 {
			t.Errorf("case %d: wrote %q despite the error", i, buf.String())
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestEncodeWorkflow(t *testing.T) {
	wf, errs := a2e.Parse([]byte(specExample), a2e.Limits{})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var buf bytes.Buffer
	if err := a2e.EncodeWorkflow(&buf, wf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != specExample {
		t.Errorf("canonical form:\n%s\nwant the spec's text:\n%s", buf.String(), specExample)
	}
	wf2, errs := a2e.Parse(buf.Bytes(), a2e.Limits{})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	assertSameWorkflow(t, wf, wf2)
	if !reflect.DeepEqual(wf, wf2) { // same lines too: the spec's text is canonical
		t.Errorf("round trip changed the workflow:\n%+v\n%+v", wf, wf2)
	}

	if err := a2e.EncodeWorkflow(&buf, nil); err == nil {
		t.Error("nil workflow encoded")
	}
	broken := &a2e.Workflow{Defined: []string{"ghost"}, Operations: map[string]*a2e.Definition{}}
	if err := a2e.EncodeWorkflow(&buf, broken); err == nil {
		t.Error("Defined id without a definition encoded")
	}
	if err := a2e.EncodeWorkflow(failWriter{}, wf); err == nil {
		t.Error("write error lost")
	}
}

// TestEncodeLegacyAsCanonical: a legacy document comes out canonical and parses
// back to the same workflow.
func TestEncodeLegacyAsCanonical(t *testing.T) {
	doc := `{"operationUpdate":{"workflowId":"w","operations":[{"id":"a","operation":{"Wait":{"duration":1}}},{"id":"b","operation":{"Loop":{"inputPath":"/workflow/x","operations":["a"]}}}]}}
{"beginExecution":{"workflowId":"w","root":"b"}}`
	wf, errs := a2e.Parse([]byte(doc), a2e.Limits{})
	if len(errs) != 0 || !wf.Legacy {
		t.Fatalf("errs %v legacy %v", errs, wf.Legacy)
	}
	var buf bytes.Buffer
	if err := a2e.EncodeWorkflow(&buf, wf); err != nil {
		t.Fatal(err)
	}
	wf2, errs := a2e.Parse(buf.Bytes(), a2e.Limits{})
	if len(errs) != 0 || wf2.Legacy {
		t.Fatalf("errs %v legacy %v", errs, wf2.Legacy)
	}
	assertSameWorkflow(t, wf, wf2)
	if !slices.Equal(wf2.Begin.OperationOrder, []string{"b"}) {
		t.Errorf("order = %v", wf2.Begin.OperationOrder)
	}
}
