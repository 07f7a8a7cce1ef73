package validate

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// checkCondition checks the operator of a FilterData condition (filter) or of a
// Conditional's condition against the literal type of its value (the type level),
// and records a {"path": ...} value as a read. at is the condition's JSON path.
//
// Decisions (doc.go): `contains` accepts a value of any type, since it
// tests array membership as well as substrings (RESOLUTIONS); a missing operator or
// value is the factory's to report.
func checkCondition(n *node, c *collector, at, operator string, value json.RawMessage, filter bool) {
	opAt, valAt := at+".operator", at+".value"
	allowed := a2e.ConditionOperators
	if filter {
		allowed = a2e.FilterOperators
	}
	switch {
	case operator == "":
	case filter && (operator == a2e.OpExists || operator == a2e.OpEmpty):
		c.err(invalid(n, opAt, "operator %s is only for Conditional conditions, not FilterData", operator).
			WithSuggestions(`To keep items that have a field, use the operator != with the value null`))
		return
	case !slices.Contains(allowed, operator):
		c.err(invalid(n, opAt, "unknown operator %q", operator).
			WithSuggestions(suggestions(c.didYouMean(operator, allowed), "Use one of: "+strings.Join(allowed, ", "))...))
		return
	}

	raw := bytes.TrimSpace(value)
	if len(raw) == 0 {
		return
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	// {"path": "/workflow/..."} compares against the data model: a read, and its
	// type is not known here.
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		if p, ok := m["path"].(string); ok {
			n.addPath(p, valAt+".path", needAny, false)
			return
		}
	}
	switch operator {
	case a2e.OpIn:
		if _, ok := v.([]any); !ok {
			c.err(invalid(n, valAt, "operator in needs an array value, not %s", datamodel.KindOf(v)).
				WithSuggestions(`Give the allowed values as an array, such as ["a", "b"]`))
		}
	case a2e.OpStartsWith, a2e.OpEndsWith:
		if _, ok := v.(string); !ok {
			c.err(invalid(n, valAt, "operator %s compares strings; the value must be a string, not %s", operator, datamodel.KindOf(v)))
		}
	case a2e.OpGt, a2e.OpLt, a2e.OpGe, a2e.OpLe:
		switch v.(type) {
		case float64, string:
		default:
			c.err(invalid(n, valAt, "operator %s compares numbers or strings; the value must be one, not %s", operator, datamodel.KindOf(v)))
		}
	}
}
