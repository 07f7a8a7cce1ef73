package runs

import (
	"encoding/json"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// Step is one operation of an A2E run's plan, as its stored document
// declares it, before or while it runs: its id and its operation's name,
// and for a Conditional its two branches, for a Loop its body. It holds
// ids and names only, never a config: no URL, value or credential
// reference reaches a plan.
type Step struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	IfTrue  []Step `json:"if_true,omitempty"`
	IfFalse []Step `json:"if_false,omitempty"`
	Body    []Step `json:"body,omitempty"`
	// Missing is set for an id the document names but does not define
	// (the validator refuses such a document; a plan still shows it).
	Missing bool `json:"missing,omitempty"`
}

// Plan bounds: a validated document is far below them, and a plan is drawn
// in a browser.
const (
	maxPlanSteps = 2000
	maxPlanDepth = 24
)

// planOf reads an A2E document's plan: its top-level operations in
// operationOrder, each branch and loop body nested in its step. A document
// that does not read is no plan (nil); a step seen again under itself is
// not followed, and past the bounds the plan stops.
func planOf(doc []byte) []Step {
	if len(doc) == 0 {
		return nil
	}
	wf, errs := a2e.Parse(doc, a2e.DefaultLimits())
	if len(errs) > 0 || wf == nil {
		return nil
	}
	p := planner{wf: wf, on: map[string]bool{}}
	return p.steps(wf.Begin.OperationOrder, 0)
}

type planner struct {
	wf *a2e.Workflow
	on map[string]bool // ids on the path from the top, against cycles
	n  int
}

func (p *planner) steps(ids []string, depth int) []Step {
	if depth > maxPlanDepth {
		return nil
	}
	var out []Step
	for _, id := range ids {
		if p.n >= maxPlanSteps {
			break
		}
		p.n++
		def, ok := p.wf.Operations[id]
		if !ok {
			out = append(out, Step{ID: id, Missing: true})
			continue
		}
		st := Step{ID: id, Type: def.Operation.Name}
		if !p.on[id] {
			p.on[id] = true
			switch def.Operation.Name {
			case "Conditional":
				var c a2e.Conditional
				if json.Unmarshal(def.Operation.Config, &c) == nil {
					st.IfTrue, st.IfFalse = p.steps(c.IfTrue, depth+1), p.steps(c.IfFalse, depth+1)
				}
			case "Loop":
				var l a2e.Loop
				if json.Unmarshal(def.Operation.Config, &l) == nil {
					st.Body = p.steps(l.Operations, depth+1)
				}
			}
			delete(p.on, id)
		}
		out = append(out, st)
	}
	return out
}
