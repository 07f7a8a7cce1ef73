package gateway

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

var updateArchitecture = flag.Bool("update-architecture", false, "rewrite the method index in docs/architecture.md")

const (
	architectureFile = "../../docs/architecture.md"
	indexBegin       = "<!-- method-index:begin (TestArchitectureIndexIsTheTable writes this; -update-architecture) -->"
	indexEnd         = "<!-- method-index:end -->"
)

// docs/architecture.md indexes the request path by the method table: one
// line per method, its access, routes and handler, rendered from the table
// itself so the map cannot drift from the code.
func TestArchitectureIndexIsTheTable(t *testing.T) {
	b, err := os.ReadFile(architectureFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start, end := strings.Index(doc, indexBegin), strings.Index(doc, indexEnd)
	if start < 0 || end < start {
		t.Fatalf("%s has no method index between %q and %q", architectureFile, indexBegin, indexEnd)
	}
	want := indexBegin + "\n" + methodIndex() + indexEnd
	got := doc[start : end+len(indexEnd)]
	if got == want {
		return
	}
	if *updateArchitecture {
		if err := os.WriteFile(architectureFile, []byte(doc[:start]+want+doc[end+len(indexEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the method index in %s differs from methodTable; run go test ./internal/gateway -run TestArchitectureIndexIsTheTable -update-architecture and review the diff", architectureFile)
}

// methodIndex renders the method table as a Markdown table.
func methodIndex() string {
	var b strings.Builder
	b.WriteString("| method | access | REST | streams | served when | handler |\n|---|---|---|---|---|---|\n")
	for _, m := range methodTable {
		access := [...]string{"public", "account", "admin"}[m.access]
		if m.publicIf != nil {
			access += " (public if " + funcName(m.publicIf) + ")"
		}
		var routes []string
		for _, r := range m.rest {
			s := "`" + r.verb + " " + r.pattern + "`"
			if r.ok != 0 {
				s += fmt.Sprintf(" %d", r.ok)
			}
			if r.sse {
				s += " (SSE)"
			}
			routes = append(routes, s)
		}
		if len(routes) == 0 {
			routes = []string{"—"}
		}
		streams, served := "", "always"
		if m.streams {
			streams = "yes"
		}
		if m.servedIf != nil {
			served = "`" + funcName(m.servedIf) + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | `%s` |\n", m.name, access, strings.Join(routes, "<br>"), streams, served, funcName(m.handle))
	}
	return b.String()
}

// funcName is a function's name without its package path: withCatalog,
// (*Server).workflowExecute.
func funcName(f any) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	name = name[strings.LastIndex(name, "/")+1:]
	name = name[strings.Index(name, ".")+1:]
	return strings.TrimSuffix(name, "-fm")
}
