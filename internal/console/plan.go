package console

import "encoding/json"

// planStep is one step of an A2E run's plan as run.get gives it: ids and
// operation names, a Conditional's two arms, a Loop's body. The run page
// draws it whole before the run reaches it (the script), and lists it for
// a browser without the script.
type planStep struct {
	ID      string     `json:"id"`
	Type    string     `json:"type"`
	IfTrue  []planStep `json:"if_true,omitempty"`
	IfFalse []planStep `json:"if_false,omitempty"`
	Body    []planStep `json:"body,omitempty"`
	Missing bool       `json:"missing,omitempty"`
}

// planJSON is the plan as the graph's data-plan attribute carries it (""
// when the run has none); html/template escapes it as an attribute.
func planJSON(plan []planStep) string {
	if len(plan) == 0 {
		return ""
	}
	b, err := json.Marshal(plan)
	if err != nil {
		return ""
	}
	return string(b)
}
