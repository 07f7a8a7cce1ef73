package agenthttp_test

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

func loadWorkflow(t *testing.T, name string) *agenthttp.Workflow {
	t.Helper()
	data, err := os.ReadFile("testdata/workflow/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	w, err := agenthttp.DecodeWorkflow(data, agenthttp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWorkflowRenderInput(t *testing.T) {
	w := loadWorkflow(t, "valid_chain")
	input := json.RawMessage(`{"url": "https://example.com/a", "topic": "rivers"}`)
	outputs := map[string]json.RawMessage{
		"fetch":     json.RawMessage(`{"body": "long text", "url": "https://example.com/a", "items": [{"title": {"t": 1}}]}`),
		"summarize": json.RawMessage(`{"summary": "short", "words": 2}`),
	}
	cases := []struct{ step, want string }{
		{"fetch", `{"all":{"url":"https://example.com/a","topic":"rivers"},"url":"https://example.com/a"}`},
		// typed values for whole references, text for embedded ones, literals as they are
		{"summarize", `{"first":{"t":1},"max_words":120,"note":"about rivers <b>","style":"short","tags":["a","b"],"text":"long text"}`},
		{"publish", `{"price":"${literal}","source":"https://example.com/a","summary":{"summary":"short","words":2}}`},
	}
	for _, c := range cases {
		t.Run(c.step, func(t *testing.T) {
			got, err := w.Steps[c.step].RenderInput(input, outputs)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestTemplateRender(t *testing.T) {
	src := map[string]json.RawMessage{
		"workflow": json.RawMessage(`{"n": 3, "s": "x", "b": true, "z": null, "o": {"k": [1, 2]}, "dot.key": 1}`),
		"s1":       json.RawMessage(`["a", {"b": "c"}]`),
	}
	lookup := func(s string) (json.RawMessage, bool) { v, ok := src[s]; return v, ok }
	cases := []struct{ tmpl, want, err string }{
		{tmpl: "${workflow.input.n}", want: `3`},
		{tmpl: "${workflow.input.z}", want: `null`},
		{tmpl: "${workflow.input.o.k[1]}", want: `2`},
		{tmpl: "${s1.output[1].b}", want: `"c"`},
		{tmpl: "${s1.output}", want: `["a",{"b":"c"}]`},
		{tmpl: "n=${workflow.input.n} s=${workflow.input.s} b=${workflow.input.b} z=${workflow.input.z}", want: `"n=3 s=x b=true z=null"`},
		{tmpl: "o=${workflow.input.o}", want: `"o={\"k\":[1,2]}"`},
		{tmpl: "plain text", want: `"plain text"`},
		{tmpl: "", want: `""`},
		{tmpl: "cost $5 and $${x}", want: `"cost $5 and ${x}"`},
		{tmpl: "${workflow.input.missing}", err: "${workflow.input.missing} is not there"},
		{tmpl: "${workflow.input.o.k[5]}", err: "${workflow.input.o.k[5]} is not there"},
		{tmpl: "${workflow.input.n.deeper}", err: "${workflow.input.n.deeper} is not there"},
		{tmpl: "${s2.output}", err: `step "s2" has no output`},
	}
	for _, c := range cases {
		t.Run(c.tmpl, func(t *testing.T) {
			tm, err := agenthttp.ParseTemplate(c.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tm.Render(lookup)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestParseRef(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{in: "workflow.input", want: "${workflow.input}"},
		{in: "workflow.input.a.b", want: "${workflow.input.a.b}"},
		{in: "workflow.input[0][1].x", want: "${workflow.input[0][1].x}"},
		{in: "step-1.output.x[0]", want: "${step-1.output.x[0]}"},
		{in: "workflow.output", err: `after "workflow" comes "input"`},
		{in: "s.input", err: `after "s" comes "output"`},
		{in: "s.outputs", err: `after "s" comes "output"`},
		{in: "s", err: "names no source"},
		{in: "s.output..a", err: "empty key"},
		{in: "s.output.a[", err: "not closed"},
		{in: "s.output.a[x]", err: "not a whole number"},
		{in: "s.output.a[01]", err: "not a whole number"},
		{in: "s.output.a]b", err: "holds ']'"},
		{in: "s.output.a b", err: "holds ' '"},
		{in: "bad/step.output", err: "step id"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			r, err := agenthttp.ParseRef(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.String() != c.want {
				t.Fatalf("got %s, want %s", r, c.want)
			}
		})
	}
}

func TestWorkflowValidateAgents(t *testing.T) {
	w := loadWorkflow(t, "valid_chain")
	known := map[string]bool{"fetcher": true, "writer": true}
	err := w.Validate(func(name string) (bool, error) { return known[name], nil })
	var ae *agenthttp.Error
	if !errors.As(err, &ae) || ae.Path != "steps.publish.agent_name" || !strings.Contains(ae.Message, `agent "publisher", which is not registered`) {
		t.Fatalf("got %v", err)
	}
	known["publisher"] = true
	if err := w.Validate(func(name string) (bool, error) { return known[name], nil }); err != nil {
		t.Fatal(err)
	}
	outage := errors.New("registry down")
	if err := w.Validate(func(string) (bool, error) { return false, outage }); !errors.Is(err, outage) {
		t.Fatalf("an outage should come back as it is, got %v", err)
	}
}

// Workflows built in Go get the same checks as decoded ones.
func TestWorkflowValidateBuilt(t *testing.T) {
	step := func(id, agent, next string, m map[string]string) *agenthttp.WorkflowStep {
		s := &agenthttp.WorkflowStep{ID: id, AgentName: agent, NextStep: next, InputMapping: map[string]json.RawMessage{}}
		for k, v := range m {
			b, _ := json.Marshal(v)
			s.InputMapping[k] = b
		}
		return s
	}
	cases := []struct {
		name  string
		w     *agenthttp.Workflow
		path  string
		msg   string
		valid bool
	}{
		{name: "ok", valid: true, w: &agenthttp.Workflow{WorkflowID: "w", StartStep: "a", Steps: map[string]*agenthttp.WorkflowStep{
			"a": step("a", "x", "b", nil), "b": step("b", "y", "", map[string]string{"v": "${a.output.v}"})}}},
		{name: "nil", w: nil, msg: "is missing"},
		{name: "no id", path: "workflow_id", msg: "is empty", w: &agenthttp.Workflow{StartStep: "a",
			Steps: map[string]*agenthttp.WorkflowStep{"a": step("a", "x", "", nil)}}},
		{name: "empty step id", path: "steps.a.id", msg: "must match", w: &agenthttp.Workflow{WorkflowID: "w", StartStep: "a",
			Steps: map[string]*agenthttp.WorkflowStep{"a": step("", "x", "", nil)}}},
		{name: "nil step", path: "steps.a", msg: "is null", w: &agenthttp.Workflow{WorkflowID: "w", StartStep: "a",
			Steps: map[string]*agenthttp.WorkflowStep{"a": nil}}},
		{name: "no agent", path: "steps.a.agent_name", msg: "is required", w: &agenthttp.Workflow{WorkflowID: "w", StartStep: "a",
			Steps: map[string]*agenthttp.WorkflowStep{"a": step("a", "", "", nil)}}},
		{name: "bad json literal", path: "steps.a.input_mapping.k", msg: "not valid JSON", w: &agenthttp.Workflow{WorkflowID: "w", StartStep: "a",
			Steps: map[string]*agenthttp.WorkflowStep{"a": {ID: "a", AgentName: "x", InputMapping: map[string]json.RawMessage{"k": json.RawMessage("{")}}}}},
		{name: "cycle off the chain", path: "steps.d.next_step", msg: "c -> d -> c", w: &agenthttp.Workflow{WorkflowID: "w", StartStep: "a",
			Steps: map[string]*agenthttp.WorkflowStep{"a": step("a", "x", "", nil), "c": step("c", "x", "d", nil), "d": step("d", "x", "c", nil)}}},
		{name: "ref to a later step", path: "steps.b.input_mapping.v", msg: `step "c", which runs after it`, w: &agenthttp.Workflow{WorkflowID: "w", StartStep: "a",
			Steps: map[string]*agenthttp.WorkflowStep{"a": step("a", "x", "b", nil), "b": step("b", "x", "c", map[string]string{"v": "x ${c.output} y"}), "c": step("c", "x", "", nil)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.w.Validate(nil)
			if c.valid {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ae *agenthttp.Error
			if !errors.As(err, &ae) || ae.Path != c.path || !strings.Contains(ae.Message, c.msg) {
				t.Fatalf("got %#v, want path %q and %q", err, c.path, c.msg)
			}
		})
	}
}

func TestWorkflowLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"workflow_id":"w","start_step":"s0","steps":{`)
	for i := 0; i <= agenthttp.MaxWorkflowSteps; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"s` + itoa(i) + `":{"agent_name":"x"}`)
	}
	b.WriteString(`}}`)
	if _, err := agenthttp.DecodeWorkflow([]byte(b.String()), agenthttp.Limits{}); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("got %v", err)
	}
	if _, err := agenthttp.DecodeWorkflow([]byte(b.String()), agenthttp.Limits{MaxBytes: 100}); err == nil || !strings.Contains(err.Error(), "over the limit of 100") {
		t.Fatalf("got %v", err)
	}
	// A reference that copies a big value many times stops at the bound.
	big := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	s := &agenthttp.WorkflowStep{ID: "s", AgentName: "x", InputMapping: map[string]json.RawMessage{}}
	for i := 0; i < 11; i++ {
		s.InputMapping["k"+itoa(i)] = json.RawMessage(`"${workflow.input}"`)
	}
	if _, err := s.RenderInput(big, nil); err == nil || !strings.Contains(err.Error(), "once rendered") {
		t.Fatalf("got %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
