package validate

import (
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// checkDependencies is the dependency level for operation ids: the order and every
// body name defined operations, nothing runs twice, nothing encloses itself, and
// every operation runs from somewhere.
//
// Decisions (doc.go): the same id in two different bodies is allowed
// (one operation shared by ifTrue and ifFalse, or by two Conditionals, still runs
// at most once per pass); the same id twice in one list is an error, as it is in
// operationOrder. Errors on the beginExecution line carry no operationId.
func checkDependencies(wf *a2e.Workflow, ids []string, nodes map[string]*node, broken map[string]bool, o Options, c *collector) {
	begin := &node{line: wf.BeginLine}

	if len(ids) > o.Limits.MaxOperations {
		n := nodes[ids[o.Limits.MaxOperations]]
		c.err(invalid(n, "", "the workflow defines %d operations; at most %d are allowed", len(ids), o.Limits.MaxOperations).
			WithSuggestions("Split the work into several workflows, or use a Loop instead of repeating operations"))
	}

	order := wf.Begin.OperationOrder
	begun := hasBegin(wf) // without it the decoder has reported the problem
	if len(order) == 0 && begun {
		c.err(invalid(begin, pathOrder, "operationOrder is empty; name at least one operation to run").
			WithSuggestions(suggestions(firstIDs(ids))...))
	}
	firstAt := make(map[string]int, len(order))
	for i, id := range order {
		at := pathOrder + index(i)
		if nodes[id] == nil {
			if !broken[id] {
				c.err(undefined(c, begin, at, pathOrder, id, ids))
			}
			continue
		}
		if j, dup := firstAt[id]; dup {
			c.err(invalid(begin, at, "operation %s appears twice in operationOrder (first at operationOrder[%d])", id, j).
				WithSuggestions("Remove the repeat; to run operations once per item, use a Loop"))
			continue
		}
		firstAt[id] = i
	}

	type place struct{ owner, field string }
	nestedIn := map[string]place{}
	for _, id := range ids {
		n := nodes[id]
		for _, b := range n.bodies {
			seen := make(map[string]int, len(b.ids))
			for i, ref := range b.ids {
				at := b.at + index(i)
				if nodes[ref] == nil {
					if !broken[ref] {
						c.err(undefined(c, n, at, b.field, ref, ids))
					}
					continue
				}
				if j, dup := seen[ref]; dup {
					c.err(invalid(n, at, "operation %s appears twice in %s (first at %s[%d])", ref, b.field, b.field, j).
						WithSuggestions("Remove the repeat"))
					continue
				}
				seen[ref] = i
				if _, ok := nestedIn[ref]; !ok {
					nestedIn[ref] = place{owner: id, field: b.field}
				}
			}
		}
	}
	for i, id := range order {
		p, nested := nestedIn[id]
		if j, ok := firstAt[id]; !nested || !ok || j != i {
			continue
		}
		c.err(invalid(begin, pathOrder+index(i), "operation %s is in operationOrder and in the %s of %s; it would run twice", id, p.field, p.owner).
			WithSuggestions("Remove " + id + " from operationOrder: it runs from " + p.owner))
	}

	findCycles(ids, nodes, c)

	reach := reachable(order, nodes)
	for _, id := range ids {
		if begun && !reach[id] {
			c.warn(warning(nodes[id], fault.ValidationError, pathID,
				"operation %s is defined but never runs: it is neither in operationOrder nor in a Conditional or Loop body", id).
				WithSuggestions("Add " + id + " to operationOrder, or remove its definition"))
		}
	}

	for _, id := range ids {
		n := nodes[id]
		if n.loop && n.maxIter > o.Limits.MaxLoopIterations {
			c.err(invalid(n, pathOperation+key(n.name)+".maxIterations",
				"maxIterations %d is above the limit of %d", n.maxIter, o.Limits.MaxLoopIterations).
				WithSuggestions("Leave maxIterations out to use the limit, or process the items in smaller batches"))
		}
	}
}

// undefined is the error for a reference to an operation that is not defined.
func undefined(c *collector, n *node, at, field, ref string, ids []string) *fault.Error {
	return invalid(n, at, "%s names operation %s, which is not defined", field, ref).
		WithSuggestions(suggestions(
			c.didYouMean(ref, ids),
			"Define operation "+ref+" with an operationUpdate before beginExecution",
		)...)
}

// firstIDs suggests the defined operations as an order (a few of them).
func firstIDs(ids []string) string {
	if len(ids) == 0 {
		return "Define operations with operationUpdate messages, then list them in operationOrder"
	}
	if len(ids) > 5 {
		ids = ids[:5]
	}
	return "List operations to run, such as: " + strings.Join(ids, ", ")
}

// findCycles reports every cycle that a depth-first walk over body references
// closes, once each, at the reference that closes it.
func findCycles(ids []string, nodes map[string]*node, c *collector) {
	const (
		white = iota
		grey
		black
	)
	state := make(map[string]int, len(ids))
	var stack []string
	reported := map[string]bool{}
	var visit func(id string)
	visit = func(id string) {
		state[id] = grey
		stack = append(stack, id)
		n := nodes[id]
		for _, b := range n.bodies {
			for i, ref := range b.ids {
				if nodes[ref] == nil {
					continue
				}
				switch state[ref] {
				case white:
					visit(ref)
				case grey:
					start := len(stack) - 1
					for stack[start] != ref {
						start--
					}
					cycle := strings.Join(append(append([]string(nil), stack[start:]...), ref), " -> ")
					if reported[cycle] {
						continue
					}
					reported[cycle] = true
					c.err(invalid(n, b.at+index(i), "operations form a cycle: %s", cycle).
						WithSuggestions("An operation may not run itself through a Conditional or Loop; remove " + ref + " from the " + b.field + " of " + id))
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = black
	}
	for _, id := range ids {
		if state[id] == white {
			visit(id)
		}
	}
}

// reachable is the set of operations run from the order, directly or nested.
func reachable(order []string, nodes map[string]*node) map[string]bool {
	seen := map[string]bool{}
	queue := append([]string(nil), order...)
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		n := nodes[id]
		if n == nil || seen[id] {
			continue
		}
		seen[id] = true
		for _, b := range n.bodies {
			queue = append(queue, b.ids...)
		}
	}
	return seen
}
