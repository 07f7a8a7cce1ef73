package agenthttp

import (
	"encoding/json"
	"sort"
	"strings"
)

// AgentCheck reports whether an agent is registered. A non-nil error (the
// registry could not be read) is returned by Validate as it is, so that an
// outage is not reported as a bad workflow.
type AgentCheck func(name string) (bool, error)

// Validate checks every rule of agent workflows (RESOLUTIONS): ids match
// their keys, the start step and every next_step exist, no cycles, every step
// reachable from start_step, references only to the workflow's input and to
// steps that run earlier, and (when agentExists is not nil) every agent
// registered. The first problem is returned as an *Error naming the step and
// field; steps are checked in sorted order, so the answer is stable.
func (w *Workflow) Validate(agentExists AgentCheck) error {
	if w == nil {
		return errorf("workflow", "", 0, "is missing")
	}
	if err := w.checkHeader(); err != nil {
		return err
	}
	ids := w.StepIDs()
	for _, id := range ids {
		if err := w.checkStep(id); err != nil {
			return err
		}
	}
	if _, ok := w.Steps[w.StartStep]; !ok {
		return w.errAt("start_step", "names step %s, which is not in steps", quoteShort(w.StartStep))
	}
	if err := w.checkCycles(ids); err != nil {
		return err
	}
	order := w.Order()
	pos := make(map[string]int, len(order))
	for i, id := range order {
		pos[id] = i
	}
	for _, id := range ids {
		if _, ok := pos[id]; !ok {
			return w.errAt(join("steps", id), "step %s is not reachable from start_step %s: no next_step on the way leads to it",
				quoteShort(id), quoteShort(w.StartStep))
		}
	}
	for i, id := range order {
		if err := w.checkRefs(id, i, pos); err != nil {
			return err
		}
	}
	if agentExists != nil {
		for _, id := range order {
			s := w.Steps[id]
			ok, err := agentExists(s.AgentName)
			if err != nil {
				return err
			}
			if !ok {
				return w.errAt(join(join("steps", id), "agent_name"), "step %s calls agent %s, which is not registered",
					quoteShort(id), quoteShort(s.AgentName))
			}
		}
	}
	return nil
}

func (w *Workflow) errAt(path, format string, args ...any) *Error {
	return errorf("workflow", path, w.offsets[path], format, args...)
}

func (w *Workflow) checkHeader() error {
	if w.WorkflowID == "" {
		return w.errAt("workflow_id", "is empty")
	}
	for _, f := range []struct{ path, v string }{
		{"workflow_id", w.WorkflowID}, {"name", w.Name}, {"version", w.Version},
		{"description", w.Description}, {"start_step", w.StartStep},
	} {
		if err := checkText("workflow", f.path, f.v, MaxWorkflowTextBytes); err != nil {
			err.Offset = w.offsets[f.path]
			return err
		}
	}
	if w.StartStep == "" {
		return w.errAt("start_step", "is empty")
	}
	switch n := len(w.Steps); {
	case n == 0:
		return w.errAt("steps", "holds no step")
	case n > MaxWorkflowSteps:
		return w.errAt("steps", "holds %d steps, over the limit of %d", n, MaxWorkflowSteps)
	}
	return nil
}

// checkStep checks one step alone: its id, agent name, next_step and the
// syntax of its references (whose order checkRefs checks later).
func (w *Workflow) checkStep(id string) error {
	path := join("steps", id)
	if err := checkStepID("workflow", path, id); err != nil {
		err.Offset = w.offsets[path]
		err.Message = "step id " + err.Message
		return err
	}
	s := w.Steps[id]
	if s == nil {
		return w.errAt(path, "step %s is null", quoteShort(id))
	}
	if s.ID != id {
		return w.errAt(join(path, "id"), "is %s but the step's key is %s; they must match", quoteShort(s.ID), quoteShort(id))
	}
	if err := CheckName("workflow", s.AgentName); err != nil {
		e := err.(*Error)
		e.Path = join(path, "agent_name")
		e.Offset = w.offsets[e.Path]
		return e
	}
	if err := checkText("workflow", join(path, "description"), s.Description, MaxWorkflowTextBytes); err != nil {
		return err
	}
	if s.NextStep != "" {
		np := join(path, "next_step")
		if _, ok := w.Steps[s.NextStep]; !ok {
			return w.errAt(np, "step %s goes on to step %s, which is not in steps", quoteShort(id), quoteShort(s.NextStep))
		}
	}
	if len(s.InputMapping) > MaxMappingKeys {
		return w.errAt(join(path, "input_mapping"), "holds %d keys, over the limit of %d", len(s.InputMapping), MaxMappingKeys)
	}
	for _, key := range sortedKeys(s.InputMapping) {
		kp := join(join(path, "input_mapping"), key)
		raw := s.InputMapping[key]
		if !json.Valid(raw) {
			return w.errAt(kp, "is not valid JSON")
		}
		refs, err := mappingRefs(raw)
		if err != nil {
			e := refErr("workflow", kp, err)
			e.Offset = w.offsets[kp]
			return e
		}
		for _, r := range refs {
			if r.Source == WorkflowSource {
				continue
			}
			if _, ok := w.Steps[r.Source]; !ok {
				return w.errAt(kp, "step %s: %s refers to step %s, which is not in steps", quoteShort(id), r, quoteShort(r.Source))
			}
		}
	}
	return nil
}

// mappingRefs parses the references of a mapping value (only string values
// hold any).
func mappingRefs(raw json.RawMessage) ([]Ref, error) {
	if kindOf(raw) != "a string" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errorf("reference", "", 0, "is not a valid string")
	}
	t, err := ParseTemplate(s)
	if err != nil {
		return nil, err
	}
	return t.Refs(), nil
}

// checkCycles follows next_step from every step. Each step has at most one
// successor, so a walk that meets a step of its own path has found a cycle.
func (w *Workflow) checkCycles(ids []string) error {
	done := map[string]bool{} // steps whose walk ends without a cycle
	for _, start := range ids {
		onPath := map[string]int{}
		var path []string
		for id := start; id != "" && !done[id]; id = w.Steps[id].NextStep {
			if at, seen := onPath[id]; seen {
				loop := append(append([]string{}, path[at:]...), id)
				last := path[len(path)-1]
				return w.errAt(join(join("steps", last), "next_step"), "step %s goes back to step %s: the steps %s form a cycle",
					quoteShort(last), quoteShort(id), strings.Join(loop, " -> "))
			}
			onPath[id] = len(path)
			path = append(path, id)
		}
		for _, id := range path {
			done[id] = true
		}
	}
	return nil
}

// checkRefs checks that step id (at position i of the run order) refers
// only to steps before it.
func (w *Workflow) checkRefs(id string, i int, pos map[string]int) error {
	s := w.Steps[id]
	for _, key := range sortedKeys(s.InputMapping) {
		kp := join(join(join("steps", id), "input_mapping"), key)
		refs, _ := mappingRefs(s.InputMapping[key]) // parsed without error by checkStep
		for _, r := range refs {
			if r.Source == WorkflowSource {
				continue
			}
			switch j := pos[r.Source]; {
			case r.Source == id:
				return w.errAt(kp, "step %s: %s refers to the step's own output", quoteShort(id), r)
			case j > i:
				return w.errAt(kp, "step %s: %s refers to step %s, which runs after it", quoteShort(id), r, quoteShort(r.Source))
			}
		}
	}
	return nil
}

// Order is the run order: start_step, then each next_step, until a step
// without one. On a workflow that does not validate it stops at a missing
// step or a repeat.
func (w *Workflow) Order() []string {
	var out []string
	seen := map[string]bool{}
	for id := w.StartStep; id != "" && !seen[id]; {
		s, ok := w.Steps[id]
		if !ok || s == nil {
			break
		}
		seen[id] = true
		out = append(out, id)
		id = s.NextStep
	}
	return out
}

// Final is the id of the last step of the run order.
func (w *Workflow) Final() string {
	o := w.Order()
	if len(o) == 0 {
		return ""
	}
	return o[len(o)-1]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
