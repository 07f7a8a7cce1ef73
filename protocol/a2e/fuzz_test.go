package a2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

func seedDocuments(f *testing.F) [][]byte {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	var docs [][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		docs = append(docs, b)
	}
	return docs
}

// FuzzParse: arbitrary bytes never panic; every problem names a line; a document
// without problems re-encodes to a canonical one that parses to the same workflow.
func FuzzParse(f *testing.F) {
	for _, d := range seedDocuments(f) {
		f.Add(d)
	}
	f.Add([]byte(`{"type":"operationUpdate","operationId":"a","operation":{"":{}}}`))
	f.Add([]byte("{\"a\":\"\\ud800\"}\n\xff\xfe"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, lim := range []a2e.Limits{{}, {MaxLineBytes: 64, MaxDocumentBytes: 512, MaxMessages: 5}} {
			wf, errs := a2e.Parse(doc, lim)
			if wf == nil || wf.Operations == nil {
				t.Fatal("nil workflow")
			}
			if len(errs) > 101 {
				t.Fatalf("%d problems", len(errs))
			}
			for _, e := range errs {
				if e.Line < 1 || e.Message == "" {
					t.Fatalf("problem without a line or message: %+v", e)
				}
			}
			if len(wf.Defined) != len(wf.Operations) {
				t.Fatalf("Defined %v and Operations disagree", wf.Defined)
			}
			if len(errs) > 0 {
				continue
			}
			var buf bytes.Buffer
			if err := a2e.EncodeWorkflow(&buf, wf); err != nil {
				t.Fatalf("valid workflow does not encode: %v", err)
			}
			wf2, errs2 := a2e.Parse(buf.Bytes(), a2e.Limits{MaxLineBytes: 1 << 20, MaxDocumentBytes: 4 << 20})
			if len(errs2) != 0 {
				t.Fatalf("canonical form %q does not parse: %v", buf.Bytes(), errs2)
			}
			assertSameWorkflow(t, wf, wf2)
		}
	})
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"/workflow/users[0].name", "/workflow/a/b", "/input", "/input.x[2]", "/workflow/a[01]", "/workflow/", "x", "/workflow/a[-0]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, parse := range []func(string) (a2e.Path, error){a2e.ParsePath, a2e.ParseField} {
			p, err := parse(s)
			if err != nil {
				var pe *a2e.PathError
				if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(s) || pe.Reason == "" {
					t.Fatalf("%q: bad error %#v", s, err)
				}
				continue
			}
			again, err := parse(p.String())
			if err != nil || !reflect.DeepEqual(again, p) {
				t.Fatalf("%q: canonical %q parses to %+v, %v", s, p.String(), again, err)
			}
		}
	})
}

func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"https://x/{/workflow/id}?q={/input/q}", `{"a":"{/workflow/b}"}`, "{/workflow/a", "{{/input}}", "{/inputs}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, err := a2e.ParseTemplate(s)
		if err != nil {
			var pe *a2e.PathError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(s) || pe.Path != s {
				t.Fatalf("%q: bad error %#v", s, err)
			}
			return
		}
		if len(tpl.Parts) == 0 {
			t.Fatalf("%q: no parts", s)
		}
		last := -1
		for _, p := range tpl.Parts {
			if p.Start <= last && !(p.Start == 0 && last == -1) || p.Start > len(s) {
				t.Fatalf("%q: part starts out of order at %d", s, p.Start)
			}
			last = p.Start
			if p.Ref == nil && !strings.HasPrefix(s[p.Start:], p.Text) {
				t.Fatalf("%q: literal %q not at %d", s, p.Text, p.Start)
			}
			if p.Ref != nil && !strings.HasPrefix(s[p.Start:], "{/") {
				t.Fatalf("%q: reference not at %d", s, p.Start)
			}
		}
	})
}

func FuzzDecodeConfig(f *testing.F) {
	for _, d := range seedDocuments(f) {
		wf, _ := a2e.Parse(d, a2e.Limits{})
		for _, def := range wf.Operations {
			f.Add(def.Operation.Name, []byte(def.Operation.Config))
		}
	}
	for name, cfgs := range invalidConfigs {
		for _, c := range cfgs {
			f.Add(name, []byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, name string, cfg []byte) {
		v, err := a2e.DecodeConfig(a2e.Operation{Name: name, Config: json.RawMessage(cfg)})
		if err != nil {
			var list a2e.ErrorList
			if v != nil || !errors.As(err, &list) || len(list) == 0 || len(list) > 21 {
				t.Fatalf("bad error %#v", err)
			}
			for _, e := range list {
				if !strings.HasPrefix(e.Path, "operation") || e.Message == "" {
					t.Fatalf("problem %+v", e)
				}
			}
			return
		}
		if v == nil || reflect.TypeOf(v).Kind() != reflect.Pointer {
			t.Fatalf("DecodeConfig returned %T", v)
		}
		if td, ok := v.(*a2e.TransformData); ok {
			tv, err := a2e.DecodeTransformConfig(td)
			if (tv == nil) == (err == nil) {
				t.Fatalf("DecodeTransformConfig = %v, %v", tv, err)
			}
		}
	})
}
