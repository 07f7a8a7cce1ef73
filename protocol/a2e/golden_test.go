package a2e_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2e"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// golden is what a parsed document looks like in a *.golden.json file.
type golden struct {
	Legacy     bool         `json:"legacy"`
	Operations []goldenOp   `json:"operations"`
	Begin      *goldenBegin `json:"begin,omitempty"`
	Canonical  []string     `json:"canonical,omitempty"` // EncodeWorkflow's output, when valid
	Errors     []*a2e.Error `json:"errors"`
	Limits     *a2e.Limits  `json:"limits,omitempty"`
}

type goldenOp struct {
	ID        string        `json:"id"`
	Line      int           `json:"line"`
	Operation a2e.Operation `json:"operation"`
}

type goldenBegin struct {
	Line           int      `json:"line"`
	ExecutionID    string   `json:"executionId"`
	OperationOrder []string `json:"operationOrder"`
	OnError        string   `json:"onError,omitempty"`
}

func testdataLimits(t *testing.T) map[string]a2e.Limits {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "limits.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]a2e.Limits
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func toGolden(t *testing.T, wf *a2e.Workflow, errs []*a2e.Error) golden {
	t.Helper()
	g := golden{Legacy: wf.Legacy, Operations: []goldenOp{}, Errors: errs}
	if g.Errors == nil {
		g.Errors = []*a2e.Error{}
	}
	for _, id := range wf.Defined {
		d := wf.Operations[id]
		g.Operations = append(g.Operations, goldenOp{ID: id, Line: d.Line, Operation: d.Operation})
	}
	if wf.BeginLine > 0 {
		b := wf.Begin
		g.Begin = &goldenBegin{Line: wf.BeginLine, ExecutionID: b.ExecutionID, OperationOrder: b.OperationOrder, OnError: b.OnError}
	}
	if len(errs) == 0 {
		var buf bytes.Buffer
		if err := a2e.EncodeWorkflow(&buf, wf); err != nil {
			t.Fatal(err)
		}
		g.Canonical = strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	}
	return g
}

func TestGolden(t *testing.T) {
	limits := testdataLimits(t)
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
			doc, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			lim := limits[name]
			wf, errs := a2e.Parse(doc, lim)
			g := toGolden(t, wf, errs)
			if lim != (a2e.Limits{}) {
				g.Limits = &lim
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // keep operators like ">" readable
			enc.SetIndent("", "  ")
			if err := enc.Encode(g); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			out := strings.TrimSuffix(in, ".jsonl") + ".golden.json"
			if *update {
				if err := os.WriteFile(out, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("%v (run go test ./protocol/a2e -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file; run with -update and review the diff.\ngot:\n%s", out, got)
			}

			// Every line-level problem names a line of the document.
			lines := bytes.Count(doc, []byte("\n")) + 1
			for _, e := range errs {
				if e.Line < 1 || e.Line > lines {
					t.Errorf("problem %q has line %d, outside 1..%d", e.Message, e.Line, lines)
				}
			}
			// A valid document re-encodes to a canonical one that parses back
			// to the same workflow.
			if len(errs) == 0 {
				canonical := strings.Join(g.Canonical, "\n") + "\n"
				wf2, errs2 := a2e.Parse([]byte(canonical), a2e.Limits{})
				if len(errs2) != 0 {
					t.Fatalf("canonical form does not parse: %v", errs2)
				}
				assertSameWorkflow(t, wf, wf2)
			}
		})
	}
}

func TestGoldenFilesHaveInputs(t *testing.T) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "*.golden.json"))
	if len(outs) == 0 {
		t.Fatal("no golden files")
	}
	for _, out := range outs {
		in := strings.TrimSuffix(out, ".golden.json") + ".jsonl"
		if _, err := os.Stat(in); err != nil {
			t.Errorf("%s has no input %s", out, in)
		}
	}
}
