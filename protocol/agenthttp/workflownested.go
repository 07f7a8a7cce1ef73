package agenthttp

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// CheckNestedRefs refuses a ${...} reference inside an object or array of
// input_mapping. References are rendered only in a string directly under
// input_mapping; one deeper was passed to the agent as literal text, so a
// wrong (or right) reference there went unnoticed. It is not part of
// Validate, which also reads back the workflows of stored runs: a run
// submitted before this check must still resume. Runs are checked with it
// when they are submitted (agentflow.Runner.Validate).
func (w *Workflow) CheckNestedRefs() error {
	for _, id := range w.StepIDs() {
		s := w.Steps[id]
		for _, key := range sortedKeys(s.InputMapping) {
			raw := s.InputMapping[key]
			if k := kindOf(raw); k != "an object" && k != "an array" {
				continue
			}
			var v any
			if json.Unmarshal(raw, &v) != nil {
				continue // Validate refuses invalid JSON
			}
			kp := join(join(join("steps", id), "input_mapping"), key)
			if where, ref, ok := nestedRef(v, key); ok {
				return w.errAt(kp, "step %s: %s at input_mapping.%s is not rendered: references are rendered only in a string directly under input_mapping (a whole reference passes its typed value); map a key of its own to %s, or build the object in an earlier step",
					quoteShort(id), ref, where, ref)
			}
		}
	}
	return nil
}

// nestedRef finds the first string (or object key) under v that holds a
// reference, or a "${" that does not parse as one, and its path.
func nestedRef(v any, path string) (where, ref string, ok bool) {
	switch t := v.(type) {
	case string:
		if !strings.Contains(t, "${") {
			return "", "", false
		}
		tmpl, err := ParseTemplate(t)
		if err != nil {
			return path, quoteShort(clipRef(t)), true
		}
		if refs := tmpl.Refs(); len(refs) > 0 {
			return path, refs[0].String(), true
		}
	case []any:
		for i, e := range t {
			if where, ref, ok := nestedRef(e, path+"["+strconv.Itoa(i)+"]"); ok {
				return where, ref, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if where, ref, ok := nestedRef(k, path+"."+k); ok {
				return where, ref, true
			}
			if where, ref, ok := nestedRef(t[k], path+"."+k); ok {
				return where, ref, true
			}
		}
	}
	return "", "", false
}
