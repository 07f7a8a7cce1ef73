package layering_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/sluicehq/sluice"

// codecLibraries are the third-party packages a protocol codec may use.
var codecLibraries = []string{
	"github.com/goccy/go-yaml",
	"github.com/Masterminds/semver/v3",
}

// rule forbids packages under from (a module-relative prefix) to import anything
// matching one of the forbidden prefixes.
type rule struct {
	from      string
	forbidden []string
	why       string
}

var rules = []rule{
	{"internal/op", []string{"internal/gateway", "internal/engine", "internal/store", "internal/cli"},
		"operations must not know the engine's internals, the gateway or the store"},
	{"internal/engine", []string{"internal/gateway", "internal/cli", "internal/store/"},
		"the engine runs plans; wiring belongs to cmd, cli and gateway"},
	{"internal/validate", []string{"internal/gateway", "internal/cli", "internal/engine"},
		"validation is independent of how work runs"},
	{"internal/store", []string{"internal/engine", "internal/op", "internal/ratelimit", "internal/gateway", "internal/cli"},
		"the store keeps rows and knows nothing of what runs on them; the adapters to the engine, operations and " +
			"rate limits live with their users (internal/checkpoint, internal/storage, the gateway), so that any of " +
			"them may build on the store without a cycle"},
	{"internal/console", []string{"internal/gateway", "internal/execution", "internal/runs", "internal/account",
		"internal/ratelimit", "internal/audit", "internal/vault", "internal/engine", "internal/store/", "internal/cli"},
		"the console decides nothing: every page's data and action is a gateway method called as the signed-in " +
			"key (console.Conn), so it reaches no service, store or policy check of its own"},
	{"internal/telemetry", []string{"internal/gateway", "internal/cli", "internal/config", "internal/store", "internal/engine",
		"internal/execution", "internal/op", "internal/egress", "internal/agent", "internal/bridge", "internal/queue"},
		"tracing is a leaf that every layer calls (the egress client, the engine, the queue bridge, the gateway): it " +
			"knows none of them, and its settings come from cli (telemetry.Settings), not from config"},
	{"internal/retention", []string{"internal/store/", "internal/engine", "internal/op", "internal/execution"},
		"the pruner deletes rows through the store's interface and runs nothing, so it works the same on every backend"},
	{"internal/", []string{"cmd/"}, "nothing imports the main package"},
	{"protocol/jsonvalue", []string{"internal/", "protocol/", "client"},
		"a leaf: it encodes JSON values as encoding/json does, for whoever needs it"},
	{"internal/debugserver", []string{"internal/", "protocol/", "client"},
		"the debug endpoints show the runtime, never the server's state"},
}

// wiring packages may import internal/cli and internal/gateway; nothing else may.
var wiring = []string{"cmd/", "internal/cli", "internal/gateway"}

type pkgImports struct {
	dir     string // module-relative
	imports map[string]string
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// scan returns the non-test imports of every package of the module, per file.
func scan(t *testing.T) []pkgImports {
	t.Helper()
	top := root(t)
	byDir := map[string]*pkgImports{}
	var order []string
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != top && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("parse %s: %v", path, err)
			return nil
		}
		rel, _ := filepath.Rel(top, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := byDir[rel]
		if p == nil {
			p = &pkgImports{dir: rel, imports: map[string]string{}}
			byDir[rel] = p
			order = append(order, rel)
		}
		file, _ := filepath.Rel(top, path)
		for _, imp := range f.Imports {
			p.imports[strings.Trim(imp.Path.Value, `"`)] = file
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]pkgImports, 0, len(order))
	for _, d := range order {
		out = append(out, *byDir[d])
	}
	return out
}

// violation reports whether package dir from may not import target, and why.
// A rule's from matches the package and its sub-packages (internal/store, not
// internal/storage); a forbidden entry ending in "/" matches only sub-packages,
// otherwise the package and its sub-packages.
func violation(from, target string) (string, bool) {
	for _, r := range rules {
		if from != r.from && !strings.HasPrefix(from, strings.TrimSuffix(r.from, "/")+"/") {
			continue
		}
		for _, f := range r.forbidden {
			if strings.HasPrefix(target+"/", f+"/") || strings.HasSuffix(f, "/") && strings.HasPrefix(target, f) {
				return r.why, true
			}
		}
	}
	return "", false
}

func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func TestProtocolPackagesArePureCodecs(t *testing.T) {
	for _, p := range scan(t) {
		if !strings.HasPrefix(p.dir, "protocol/") {
			continue
		}
		for imp, file := range p.imports {
			switch {
			case isStdlib(imp):
			case strings.HasPrefix(imp, module+"/protocol/"):
			case slices.ContainsFunc(codecLibraries, func(l string) bool { return imp == l || strings.HasPrefix(imp, l+"/") }):
			default:
				t.Errorf("%s imports %s: protocol packages may import only the standard library, sibling protocol packages and codec libraries", file, imp)
			}
		}
	}
}

// importGraph is the module's non-test import graph: package dir -> the
// module packages it imports (module-relative) -> the file that imports each.
func importGraph(pkgs []pkgImports) map[string]map[string]string {
	graph := map[string]map[string]string{}
	for _, p := range pkgs {
		graph[p.dir] = map[string]string{}
		for imp, file := range p.imports {
			if strings.HasPrefix(imp, module+"/") {
				graph[p.dir][strings.TrimPrefix(imp, module+"/")] = file
			}
		}
	}
	return graph
}

// violations lists the rules graph breaks. A package breaks a rule by
// importing a forbidden package directly or through others, since it then
// depends on it all the same; the chain reported is a shortest one.
func violations(graph map[string]map[string]string) []string {
	var out []string
	for _, from := range slices.Sorted(maps.Keys(graph)) {
		via := map[string]string{from: ""} // package -> the one importing it on the way
		for queue := []string{from}; len(queue) > 0; queue = queue[1:] {
			for _, next := range slices.Sorted(maps.Keys(graph[queue[0]])) {
				if _, seen := via[next]; seen {
					continue
				}
				via[next] = queue[0]
				queue = append(queue, next)
				if why, bad := violation(from, next); bad {
					chain := []string{next}
					for p := queue[0]; p != from; p = via[p] {
						chain = append(chain, p)
					}
					slices.Reverse(chain)
					out = append(out, fmt.Sprintf("%s imports %s: %s", graph[from][chain[0]], strings.Join(chain, " -> "), why))
				}
			}
		}
	}
	return out
}

func TestInternalLayering(t *testing.T) {
	pkgs := scan(t)
	for _, v := range violations(importGraph(pkgs)) {
		t.Error(v)
	}
	for _, p := range pkgs {
		for imp, file := range p.imports {
			target, ours := strings.CutPrefix(imp, module+"/")
			if ours && (strings.HasPrefix(target, "internal/cli") || strings.HasPrefix(target, "internal/gateway")) &&
				!slices.ContainsFunc(wiring, func(w string) bool { return strings.HasPrefix(p.dir, w) }) {
				t.Errorf("%s imports %s: only cmd, cli and gateway wire everything together", file, imp)
			}
		}
	}
}

// directRules forbid packages to import others themselves; what they reach
// through the packages they may import is those packages' business.
var directRules = []rule{
	{"internal/caprun", []string{"internal/checkpoint", "internal/queue"},
		"a kind of run keeps no checkpoints and leases nothing: the run service (internal/execution) does, for every kind"},
	{"internal/agentflow", []string{"internal/checkpoint"},
		"a kind of run keeps no checkpoints: the run service (internal/execution) does, for every kind (agentflow reads " +
			"the queue only to empty the topic of the steps of runs from before the run service)"},
}

func TestKindsOfRunLeaveDurabilityToTheRunService(t *testing.T) {
	for _, p := range scan(t) {
		for _, r := range directRules {
			if p.dir != r.from && !strings.HasPrefix(p.dir, r.from+"/") {
				continue
			}
			for imp, file := range p.imports {
				target, ours := strings.CutPrefix(imp, module+"/")
				if ours && slices.ContainsFunc(r.forbidden, func(f string) bool { return target == f || strings.HasPrefix(target, f+"/") }) {
					t.Errorf("%s imports %s: %s", file, imp, r.why)
				}
			}
		}
	}
}

func TestNoGrabBagPackages(t *testing.T) {
	banned := []string{"util", "utils", "common", "models", "types", "helpers", "misc"}
	for _, p := range scan(t) {
		if slices.Contains(banned, filepath.Base(p.dir)) {
			t.Errorf("package %s: name packages for what they are, not util/common/models/types", p.dir)
		}
	}
}

// TestRulesCatchViolations proves the checks can fail: a synthetic import of the
// engine from an operation, or of rate limits from the store through other
// packages, must be reported by the same matching logic.
func TestRulesCatchViolations(t *testing.T) {
	violates := func(from, target string) bool { _, bad := violation(from, target); return bad }
	cases := []struct {
		from, target string
		want         bool
	}{
		{"internal/op", "internal/engine", true},
		{"internal/op", "internal/store/sqlite", true},
		{"internal/op", "internal/datamodel", false},
		{"internal/engine", "internal/gateway", true},
		{"internal/engine", "internal/op", false},
		{"internal/validate", "internal/engine", true},
		{"internal/cache", "cmd/sluice", true},
		{"internal/store", "internal/engine", true},
		{"internal/store/sqlite", "internal/ratelimit", true},
		{"internal/store/keyguard", "internal/op", true},
		{"internal/store", "internal/cli", true},
		{"internal/storage", "internal/op", false},
		{"internal/checkpoint", "internal/engine", false},
	}
	for _, c := range cases {
		if got := violates(c.from, c.target); got != c.want {
			t.Errorf("violates(%s -> %s) = %v, want %v", c.from, c.target, got, c.want)
		}
	}
	// A forbidden package reached through others is reported, with the chain.
	graph := map[string]map[string]string{
		"internal/store/sqlite": {"internal/store": "internal/store/sqlite/db.go"},
		"internal/store":        {"internal/policy": "internal/store/store.go"},
		"internal/policy":       {"internal/config": "internal/policy/key.go"},
		"internal/config":       {"internal/ratelimit": "internal/config/config.go"},
		"internal/ratelimit":    {},
	}
	why, _ := violation("internal/store", "internal/ratelimit")
	want := []string{
		"internal/store/store.go imports internal/policy -> internal/config -> internal/ratelimit: " + why,
		"internal/store/sqlite/db.go imports internal/store -> internal/policy -> internal/config -> internal/ratelimit: " + why,
	}
	if got := violations(graph); !slices.Equal(got, want) {
		t.Errorf("violations through other packages:\n got %q\nwant %q", got, want)
	}
	if !isStdlib("encoding/json") || isStdlib("github.com/x/y") {
		t.Error("isStdlib misclassifies")
	}
}
