package validate

import (
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// checkDataFlow walks the workflow in execution order, keeping the paths written so
// far, and checks each read against them: the dependency level for paths (a read
// nothing earlier writes is a warning, RESOLUTIONS) and the type level (a reader
// that needs an array fed by a writer known to write something else is an error).
//
// Decisions (doc.go):
//   - A write covers a read when either path lies inside the other: writing
//     /workflow/users covers reading /workflow/users[0].name, and writing
//     /workflow/a/b covers reading /workflow/a (which then holds an object).
//   - Writes inside a Conditional's branches count after it (one branch may have
//     run); writes inside a Loop's body count after it unless the loop runs
//     iterations concurrently (each iteration then writes its own overlay).
//   - Types are taken from an exact write only, and only when every way to reach
//     the read agrees: a write in one branch, or in a loop body that may run zero
//     times, has an unknown type afterwards.
//   - /input paths are always readable; /workflow/item and /workflow/index are
//     readable inside a loop body.
func checkDataFlow(wf *a2e.Workflow, ids []string, nodes map[string]*node, c *collector) {
	w := &walker{nodes: nodes, c: c, sc: newScope(), onStack: map[string]bool{}, budget: walkBudget, warned: map[*node]map[int]bool{}}
	for _, id := range ids {
		if n := nodes[id]; n.out != nil {
			w.all = append(w.all, n.output(n.outType))
		}
	}
	w.list(wf.Begin.OperationOrder)
}

// walkBudget bounds the work of the walk, counted in operations visited, paths
// read and writes carried out of branches and loops. An operation shared by many
// bodies is walked once per way to reach it, and deep nesting carries every write
// up each level, so a hostile document could otherwise cost exponential time. When
// the budget runs out the rest of the walk is skipped: no checks, so no false
// warnings. Real workflows (maxOperations 20) use a few hundred units.
const walkBudget = 100_000

type walker struct {
	nodes   map[string]*node
	c       *collector
	sc      *scope
	onStack map[string]bool // cycles are reported elsewhere; here they end the walk
	budget  int
	all     []write                // every outputPath of the document, for suggestions
	warned  map[*node]map[int]bool // reads already warned about, by node and index
}

var (
	itemPath  = a2e.Path{Root: a2e.RootWorkflow, Segments: []a2e.Segment{{Key: "item"}}}
	indexPath = a2e.Path{Root: a2e.RootWorkflow, Segments: []a2e.Segment{{Key: "index"}}}
	itemVar   = write{path: itemPath, keys: keysOf(itemPath)}
	indexVar  = write{path: indexPath, keys: keysOf(indexPath), t: tNumber}
)

func (w *walker) list(ids []string) {
	for _, id := range ids {
		w.visit(id)
	}
}

// visit checks one operation's reads against the scope and adds its writes.
func (w *walker) visit(id string) {
	n := w.nodes[id]
	if n == nil || w.onStack[id] || w.budget <= 0 {
		return
	}
	w.budget -= 1 + len(n.reads)
	w.onStack[id] = true
	defer delete(w.onStack, id)

	inType := tUnknown
	for i, r := range n.reads {
		if t := w.check(n, i, r); r.input {
			inType = t
		}
	}
	switch {
	case n.conditional:
		if n.out != nil {
			w.sc.add(n.output(n.outType))
		}
		var branches [][]write
		for _, b := range n.bodies {
			m := w.sc.mark()
			w.list(b.ids)
			if w.budget <= 0 {
				return // nothing is checked any more: the scope no longer matters
			}
			branches = append(branches, w.sc.since(m))
			w.sc.rollback(m)
		}
		// Without ifFalse, "none" is a third way through that writes nothing.
		if len(n.bodies) < 2 {
			branches = append(branches, nil)
		}
		merged := mergeBranches(branches)
		w.budget -= len(merged)
		for _, wr := range merged {
			w.sc.add(wr)
		}
	case n.loop:
		m := w.sc.mark()
		w.sc.add(itemVar)
		w.sc.add(indexVar)
		inner := w.sc.mark()
		for _, b := range n.bodies {
			w.list(b.ids)
		}
		if w.budget <= 0 {
			return
		}
		body := w.sc.since(inner)
		w.sc.rollback(m)
		if !n.concurrent {
			w.budget -= len(body)
			for _, bw := range body {
				bw.t = tUnknown // the body may run zero times
				w.sc.add(bw)
			}
		}
		if n.out != nil {
			w.sc.add(n.output(n.outType))
		}
	default:
		if n.out != nil {
			t := n.outType
			if n.outFollowsInput && inType == tArray {
				t = tArray
			}
			w.sc.add(n.output(t))
		}
	}
}

// mergeBranches joins the writes of alternative branches: a path keeps its type
// only when every branch writes it last with that same type.
func mergeBranches(branches [][]write) []write {
	lasts := make([]map[string]typ, len(branches))
	total := 0
	for i, br := range branches {
		lasts[i] = make(map[string]typ, len(br))
		for _, wr := range br {
			lasts[i][wr.keys.full] = wr.t
		}
		total += len(br)
	}
	out := make([]write, 0, total)
	for bi, br := range branches {
		for _, wr := range br {
			for bj := range branches {
				if bj == bi || wr.t == tUnknown {
					continue
				}
				if t, ok := lasts[bj][wr.keys.full]; !ok || t != wr.t {
					wr.t = tUnknown
				}
			}
			out = append(out, wr)
		}
	}
	return out
}

// check reports a read that nothing in scope covers (warning) and a type mismatch
// with the last exact writer (error). It returns the type read, when known.
func (w *walker) check(n *node, i int, r read) typ {
	if r.path.Root != a2e.RootWorkflow {
		return tUnknown
	}
	if !w.sc.covers(r.keys) {
		if !w.warned[n][i] { // the same read reached again gives the same warning
			if w.warned[n] == nil {
				w.warned[n] = map[int]bool{}
			}
			w.warned[n][i] = true
			if w.c.warnsFull() {
				w.c.dropW++ // counted, without the work of its suggestions
			} else {
				w.c.warn(w.missing(n, r))
			}
		}
		return tUnknown
	}
	last, ok := w.sc.exact(r.keys)
	if !ok || last.t == tUnknown {
		return tUnknown
	}
	switch {
	case r.need == needArray && last.t != tArray:
		w.c.err(invalid(n, r.at, "%s reads %s as an array, but %s writes %s there", n.desc, r.path, writer(last), last.t).
			WithSuggestions("Read an array here, or change " + writerID(last) + " to write one"))
	case r.need == needNotArray && last.t == tArray:
		w.c.err(invalid(n, r.at, "%s merges objects, but %s writes an array at %s", n.desc, writer(last), r.path).
			WithSuggestions("Use the concat or union strategy to join arrays"))
	}
	return last.t
}

func writer(wr write) string {
	if wr.n == nil {
		return "the loop"
	}
	return "operation " + wr.n.id + " (" + wr.n.desc + ")"
}

func writerID(wr write) string {
	if wr.n == nil {
		return "the loop"
	}
	return wr.n.id
}

// missing is the warning for a read no earlier operation writes, with the likely
// fix: an operation that writes it elsewhere, or a path of a similar name.
func (w *walker) missing(n *node, r read) *fault.Error {
	e := warning(n, fault.DataError, r.at, "%s reads %s, but no operation that runs before it writes that path", n.id, r.path)
	for _, wr := range w.all {
		if wr.n != n && (r.path.HasPrefix(wr.path) || wr.path.HasPrefix(r.path)) {
			return e.WithSuggestions("Operation " + wr.n.id + " writes " + wr.path.String() + "; run it before " + n.id)
		}
	}
	paths := make([]string, 0, len(w.all))
	for _, wr := range w.all {
		paths = append(paths, wr.path.String())
	}
	return e.WithSuggestions(suggestions(
		w.c.didYouMean(r.path.String(), paths),
		"Write "+r.path.String()+" with an earlier operation, or pass it as input and read /input/...",
	)...)
}
