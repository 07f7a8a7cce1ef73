package agenthttp

import (
	"bytes"
	"encoding/json"
	"sort"
	"unicode/utf8"
)

// Multi-step agent workflows (RESOLUTIONS "HTTP task agents"): the seed
// platform's format, a chain of steps each calling one registered agent with
// an input built from the workflow's input and earlier steps' outputs.
//
//	{"workflow_id": "w1", "name": "research", "version": "1.0.0",
//	 "start_step": "fetch",
//	 "steps": {
//	   "fetch":     {"id": "fetch", "agent_name": "fetcher", "next_step": "summarize",
//	                 "input_mapping": {"url": "${workflow.input.url}"}},
//	   "summarize": {"id": "summarize", "agent_name": "writer", "next_step": null,
//	                 "input_mapping": {"text": "${fetch.output.body}", "style": "short"}}}}

// Bounds of agent workflows.
const (
	// DefaultMaxWorkflowBytes bounds a workflow document.
	DefaultMaxWorkflowBytes = 1 << 20
	// MaxWorkflowSteps bounds the steps of one workflow.
	MaxWorkflowSteps = 256
	// MaxStepIDBytes bounds a step id (it becomes part of task ids and
	// queue item ids).
	MaxStepIDBytes = 64
	// MaxMappingKeys bounds the keys of one step's input_mapping.
	MaxMappingKeys = 256
	// MaxWorkflowTextBytes bounds workflow_id, name, version and
	// description.
	MaxWorkflowTextBytes = 256
	// MaxRenderedInputBytes bounds a step's input once its references are
	// rendered: a reference may copy a large output many times.
	MaxRenderedInputBytes = DefaultMaxRequestBytes
)

// Workflow is a multi-step agent workflow.
type Workflow struct {
	WorkflowID  string
	Name        string
	Version     string
	Description string
	StartStep   string
	// Steps by id; each step's ID equals its key.
	Steps map[string]*WorkflowStep

	// offsets maps a field path to the byte offset of its value in the
	// decoded document, so that validation errors point into it.
	offsets map[string]int
}

// WorkflowStep is one step: call AgentName with the input InputMapping
// renders, then go on to NextStep ("" ends the workflow).
type WorkflowStep struct {
	ID          string
	AgentName   string
	Description string
	NextStep    string
	// InputMapping maps each key of the agent's input object to a value: a
	// string (which may hold ${...} references, see ParseTemplate) or any
	// other JSON value, passed as it is.
	InputMapping map[string]json.RawMessage
}

type workflowWire struct {
	WorkflowID  string                   `json:"workflow_id"`
	Name        string                   `json:"name"`
	Version     string                   `json:"version"`
	Description string                   `json:"description,omitempty"`
	StartStep   string                   `json:"start_step"`
	Steps       map[string]*WorkflowStep `json:"steps"`
}

// MarshalJSON writes the seed platform's shape (steps and mapping keys in
// sorted order, next_step null at the end of the chain).
func (w Workflow) MarshalJSON() ([]byte, error) {
	return marshalPlain(workflowWire{WorkflowID: w.WorkflowID, Name: w.Name, Version: w.Version,
		Description: w.Description, StartStep: w.StartStep, Steps: w.Steps})
}

type stepWire struct {
	ID           string                     `json:"id"`
	AgentName    string                     `json:"agent_name"`
	Description  string                     `json:"description,omitempty"`
	NextStep     *string                    `json:"next_step"`
	InputMapping map[string]json.RawMessage `json:"input_mapping"`
}

// MarshalJSON writes a step with next_step null when it ends the chain and
// input_mapping {} when empty.
func (s WorkflowStep) MarshalJSON() ([]byte, error) {
	w := stepWire{ID: s.ID, AgentName: s.AgentName, Description: s.Description, InputMapping: s.InputMapping}
	if s.NextStep != "" {
		next := s.NextStep
		w.NextStep = &next
	}
	if w.InputMapping == nil {
		w.InputMapping = map[string]json.RawMessage{}
	}
	return marshalPlain(w)
}

// marshalPlain is json.Marshal without HTML escaping: "<" in a mapping
// stays "<", as the author wrote it.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// StepIDs returns the ids of w's steps, sorted.
func (w *Workflow) StepIDs() []string {
	ids := make([]string, 0, len(w.Steps))
	for id := range w.Steps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// DecodeWorkflow reads a workflow document (JSON) and checks it with
// Validate(nil): every rule but the existence of agents, which needs the
// registry (call Validate again with it). Unknown fields are refused; a
// step without "id" takes its key.
func DecodeWorkflow(data []byte, lim Limits) (*Workflow, error) {
	d := decoder{what: "workflow", lim: lim.orDefault(DefaultMaxWorkflowBytes)}
	members, err := d.top(data)
	if err != nil {
		return nil, err
	}
	w := &Workflow{offsets: map[string]int{}}
	have := map[string]bool{}
	for _, m := range members {
		w.offsets[join("", m.key)] = m.off
		switch m.key {
		case "workflow_id", "name", "version", "description", "start_step":
			s, err := d.text(m, m.key)
			if err != nil {
				return nil, err
			}
			switch m.key {
			case "workflow_id":
				w.WorkflowID = s
			case "name":
				w.Name = s
			case "version":
				w.Version = s
			case "description":
				w.Description = s
			case "start_step":
				w.StartStep = s
			}
		case "steps":
			if w.Steps, err = d.steps(m, w.offsets); err != nil {
				return nil, err
			}
		default:
			return nil, d.unknown(m, "", "workflow_id", "name", "version", "description", "start_step", "steps")
		}
		have[m.key] = true
	}
	for _, k := range []string{"workflow_id", "start_step", "steps"} {
		if !have[k] {
			return nil, errorf(d.what, k, 0, "is missing")
		}
	}
	if err := w.Validate(nil); err != nil {
		return nil, err
	}
	return w, nil
}

// text reads m as a string of at most MaxWorkflowTextBytes without control
// characters.
func (d decoder) text(m member, path string) (string, error) {
	s, err := d.str(m, path)
	if err != nil {
		return "", err
	}
	if err := checkText(d.what, path, s, MaxWorkflowTextBytes); err != nil {
		err.Offset = m.off
		return "", err
	}
	return s, nil
}

func checkText(what, path, s string, max int) *Error {
	if len(s) > max {
		return errorf(what, path, 0, "is %d bytes, over the limit of %d", len(s), max)
	}
	if !utf8.ValidString(s) {
		return errorf(what, path, 0, "is not valid UTF-8")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return errorf(what, path, 0, "holds a control character at byte %d", i)
		}
	}
	return nil
}

func (d decoder) steps(m member, offsets map[string]int) (map[string]*WorkflowStep, error) {
	members, err := d.object(m.raw, "steps", m.off)
	if err != nil {
		return nil, err
	}
	if len(members) > MaxWorkflowSteps {
		return nil, errorf(d.what, "steps", m.off, "holds %d steps, over the limit of %d", len(members), MaxWorkflowSteps)
	}
	steps := make(map[string]*WorkflowStep, len(members))
	for _, sm := range members {
		path := join("steps", sm.key)
		offsets[path] = sm.off
		if err := checkStepID(d.what, path, sm.key); err != nil {
			err.Offset = sm.off
			err.Message = "step id " + err.Message
			return nil, err
		}
		s, err := d.step(sm, path, offsets)
		if err != nil {
			return nil, err
		}
		if s.ID == "" {
			s.ID = sm.key
		}
		steps[sm.key] = s
	}
	return steps, nil
}

func (d decoder) step(m member, path string, offsets map[string]int) (*WorkflowStep, error) {
	members, err := d.object(m.raw, path, m.off)
	if err != nil {
		return nil, err
	}
	s := &WorkflowStep{}
	haveAgent := false
	for _, f := range members {
		fp := join(path, f.key)
		offsets[fp] = f.off
		switch f.key {
		case "id":
			if s.ID, err = d.text(f, fp); err != nil {
				return nil, err
			}
			if s.ID == "" {
				return nil, errorf(d.what, fp, f.off, "is empty")
			}
		case "agent_name":
			if s.AgentName, err = d.text(f, fp); err != nil {
				return nil, err
			}
			haveAgent = true
		case "description":
			if s.Description, err = d.text(f, fp); err != nil {
				return nil, err
			}
		case "next_step":
			next, ok, err := d.optStr(f, fp)
			if err != nil {
				return nil, err
			}
			if ok && next == "" {
				return nil, errorf(d.what, fp, f.off, "is empty; use null to end the workflow")
			}
			if cerr := checkText(d.what, fp, next, MaxWorkflowTextBytes); cerr != nil {
				cerr.Offset = f.off
				return nil, cerr
			}
			s.NextStep = next
		case "input_mapping":
			if s.InputMapping, err = d.mapping(f, fp, offsets); err != nil {
				return nil, err
			}
		default:
			return nil, d.unknown(f, path, "id", "agent_name", "description", "next_step", "input_mapping")
		}
	}
	if !haveAgent {
		return nil, errorf(d.what, join(path, "agent_name"), m.off, "is missing")
	}
	return s, nil
}

func (d decoder) mapping(m member, path string, offsets map[string]int) (map[string]json.RawMessage, error) {
	if isNull(m.raw) {
		return nil, nil
	}
	members, err := d.object(m.raw, path, m.off)
	if err != nil {
		return nil, err
	}
	if len(members) > MaxMappingKeys {
		return nil, errorf(d.what, path, m.off, "holds %d keys, over the limit of %d", len(members), MaxMappingKeys)
	}
	out := make(map[string]json.RawMessage, len(members))
	for _, f := range members {
		fp := join(path, f.key)
		offsets[fp] = f.off
		if !utf8.ValidString(f.key) {
			return nil, errorf(d.what, fp, f.off, "key is not valid UTF-8")
		}
		if !utf8.Valid(f.raw) {
			return nil, errorf(d.what, fp, f.off, "is not valid UTF-8")
		}
		out[f.key] = compact(f.raw)
	}
	return out, nil
}

// checkStepID: 1 to MaxStepIDBytes of letters, digits, '_' and '-'. No '.'
// (references split on it), no '/' (task ids are runID/stepID), and not
// "workflow" (which names the workflow's input in references).
func checkStepID(what, path, id string) *Error {
	switch {
	case id == "":
		return errorf(what, path, 0, "is empty")
	case len(id) > MaxStepIDBytes:
		return errorf(what, path, 0, "is %d bytes, over the limit of %d", len(id), MaxStepIDBytes)
	case id == "workflow":
		return errorf(what, path, 0, `"workflow" is reserved: ${workflow.input...} names the workflow's input`)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return errorf(what, path, 0, "%s holds %q at byte %d; use letters, digits, '_' and '-'", quoteShort(id), rune(c), i)
		}
	}
	return nil
}

// EncodeWorkflow writes w as compact JSON after checking it with
// Validate(nil).
func EncodeWorkflow(w *Workflow) ([]byte, error) {
	if err := w.Validate(nil); err != nil {
		return nil, err
	}
	b, err := marshalPlain(w)
	if err != nil {
		return nil, errorf("workflow", "", 0, "does not encode: %v", err)
	}
	return b, nil
}
