package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/sluicehq/sluice/protocol/a2s"
)

// One capability of the registry: its document read with the A2S codec
// (lint, tasks, flow), its tasks as a graph, and a form made from its inputs
// that runs it (capability.run, as the key).

// taskNode is one task in the document's graph.
type taskNode struct {
	ID, Type  string
	Y, TextY  int
	DependsOn []string
}

// taskEdge is a mapping from one task's outputs into another's inputs.
type taskEdge struct {
	From, To string
	Path     string // the SVG path
}

// capabilityGraph lays the tasks out in document order, one per row, with
// an arc on the right for each task whose inputs map another's outputs.
func capabilityGraph(doc *a2s.Document) ([]taskNode, []taskEdge, int) {
	const rowH, boxH = 56, 40
	row := map[string]int{}
	nodes := make([]taskNode, 0, len(doc.Tasks))
	for i, t := range doc.Tasks {
		row[t.ID.Value] = i
		nodes = append(nodes, taskNode{ID: t.ID.Value, Type: t.Type.Value, Y: i * rowH, TextY: i*rowH + boxH/2 + 5})
	}
	var edges []taskEdge
	for i, t := range doc.Tasks {
		seen := map[string]bool{}
		for _, p := range t.Inputs {
			if p.Mapping == nil {
				continue
			}
			from, _, _ := strings.Cut(p.Mapping.Raw, ".")
			j, ok := row[from]
			if !ok || j == i || seen[from] {
				continue
			}
			seen[from] = true
			nodes[i].DependsOn = append(nodes[i].DependsOn, from)
			y1, y2 := j*rowH+boxH/2, i*rowH+boxH/2
			bend := 300 + 14*abs(i-j)
			edges = append(edges, taskEdge{From: from, To: t.ID.Value,
				Path: fmt.Sprintf("M 280 %d C %d %d, %d %d, 280 %d", y1, bend, y1, bend, y2, y2)})
		}
	}
	return nodes, edges, max(len(nodes)*rowH, rowH)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// flowLines renders the document's flow as indented lines.
func flowLines(s *a2s.Step, depth int, out *[]string) {
	if s == nil || len(*out) > 500 || depth > 20 {
		return
	}
	pad := strings.Repeat("  ", depth)
	switch {
	case s.Task.Value != "":
		*out = append(*out, pad+"task "+s.Task.Value)
	case s.Kind != "":
		*out = append(*out, pad+s.Kind)
	}
	for _, c := range s.Steps {
		flowLines(c, depth+1, out)
	}
	if len(s.Then) > 0 {
		*out = append(*out, pad+"then")
		for _, c := range s.Then {
			flowLines(c, depth+1, out)
		}
	}
	if len(s.Else) > 0 {
		*out = append(*out, pad+"else")
		for _, c := range s.Else {
			flowLines(c, depth+1, out)
		}
	}
}

// inputFields are the capability's inputs as form fields.
func inputFields(doc *a2s.Document) []field {
	var out []field
	for _, p := range doc.Inputs {
		t := p.Type.Value
		switch t {
		case "number", "integer", "boolean", "string":
		default:
			t = "json"
		}
		out = append(out, field{Name: p.Name, Type: t, Help: p.Description.Value})
	}
	return out
}

func (c *Console) capabilityPage(w http.ResponseWriter, r *http.Request, ss *session) {
	path := r.PathValue("ns") + "/" + r.PathValue("id")
	var entry struct {
		Namespace, ID, Version, Checksum, Type, Level, Description string
		AuditStatus                                                string `json:"audit_status"`
		Document                                                   string `json:"document"`
		Format                                                     string `json:"format"`
	}
	if e := ss.call(r.Context(), mRegistryGet, map[string]any{"path": path}, &entry); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	doc, diags := a2s.LintBytes([]byte(entry.Document), a2s.Options{File: entry.ID})
	data := map[string]any{"Entry": entry, "Path": path, "Lint": diags}
	if doc != nil {
		nodes, edges, height := capabilityGraph(doc)
		var flow []string
		flowLines(doc.Flow, 0, &flow)
		var deps []string
		for _, d := range doc.Dependencies {
			deps = append(deps, d.Name+" → "+d.Namespace.Value+"/"+d.ID.Value+" "+d.Version.Value)
		}
		data["Nodes"], data["Edges"], data["Height"] = nodes, edges, height
		data["Flow"], data["Dependencies"], data["Inputs"] = flow, deps, inputFields(doc)
	}
	c.render(w, http.StatusOK, "capability", ss, view{Title: "Capability " + path, Section: "capabilities", Data: data})
}

// capabilityRun runs the capability with the form's inputs and opens the
// run's page.
func (c *Console) capabilityRun(w http.ResponseWriter, r *http.Request, ss *session) {
	path := r.PathValue("ns") + "/" + r.PathValue("id")
	inputs, problem := answerOf(r.PostForm)
	if problem != "" {
		c.refuse(w, r, ss, http.StatusBadRequest, problem)
		return
	}
	var run struct {
		RunID string `json:"run_id"`
	}
	if e := ss.call(r.Context(), mCapabilityRun, map[string]any{"id": path, "inputs": inputs}, &run); e != nil {
		c.failed(w, r, ss, e)
		return
	}
	http.Redirect(w, r, Prefix+"runs/"+url.PathEscape(run.RunID), http.StatusSeeOther)
}
