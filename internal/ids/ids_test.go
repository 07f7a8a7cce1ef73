package ids

import (
	"crypto/rand"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

type format struct {
	name   string
	kind   Kind
	prefix string
	hex    int // characters after the prefix
}

// formats pins every kind's wire format: these ids are stored in databases
// and files, so a change here is a migration, not an edit.
var formats = []format{
	{"Execution", Execution, "exec-", 24},
	{"CapabilityRun", CapabilityRun, "run-", 24},
	{"AgentWorkflow", AgentWorkflow, "awf-", 24},
	{"EngineExecution", EngineExecution, "", 32},
	{"OperationCall", OperationCall, "call-", 20},
	{"Task", Task, "task-", 24},
	{"AgentCall", AgentCall, "call-", 24},
	{"Account", Account, "acct-", 20},
	{"Request", Request, "req-", 24},
	{"Slot", Slot, "slot-", 24},
	{"LeaseToken", LeaseToken, "", 24},
	{"ProgressToken", ProgressToken, "sluice-", 24},
	{"MCPSession", MCPSession, "mcp-", 32},
	{"ACPPermission", ACPPermission, "acpperm-", 32},
	{"ConsoleSession", ConsoleSession, "cs-", 64},
	{"ConsoleCSRF", ConsoleCSRF, "csrf-", 32},
	{"TempFile", TempFile, ".tmp-", 16},
	{"BenchSchema", BenchSchema, "sluice_bench_", 12},
	{"Tail", Tail, "", 12},
}

func TestEveryKindKeepsItsFormat(t *testing.T) {
	const draws = 5000
	for _, f := range formats {
		seen := make(map[string]bool, draws)
		digits := map[rune]bool{}
		for range draws {
			id := New(f.kind)
			random, ok := strings.CutPrefix(id, f.prefix)
			if !ok || len(random) != f.hex {
				t.Fatalf("%s: %q is not %q and %d hex characters", f.name, id, f.prefix, f.hex)
			}
			for _, c := range random {
				if !strings.ContainsRune("0123456789abcdef", c) {
					t.Fatalf("%s: %q has %q after its prefix, outside lowercase hex", f.name, id, c)
				}
				digits[c] = true
			}
			if seen[id] {
				t.Fatalf("%s: %q drawn twice in %d draws", f.name, id, len(seen))
			}
			seen[id] = true
		}
		if len(digits) != 16 {
			t.Errorf("%s: %d draws used only %d of the 16 hex digits: the random part is not uniform hex", f.name, draws, len(digits))
		}
	}
}

// TestEveryKindIsPinned keeps formats complete: a kind declared in kinds.go
// without a pinned format fails here.
func TestEveryKindIsPinned(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "kinds.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(file, func(n ast.Node) bool {
		if v, ok := n.(*ast.ValueSpec); ok {
			for _, name := range v.Names {
				declared = append(declared, name.Name)
			}
		}
		return true
	})
	if len(declared) == 0 {
		t.Fatal("kinds.go declares no kind")
	}
	for _, name := range declared {
		if !slices.ContainsFunc(formats, func(f format) bool { return f.name == name }) {
			t.Errorf("kind %s has no pinned format in formats", name)
		}
	}
}

type failingSource struct{}

func (failingSource) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

// TestNewNeverReturnsAnIDFromAFailedSource runs New in a child process whose
// random source fails: the process must end with the runtime's fatal error,
// never return an id (it would repeat) and never panic (a handler could
// recover and go on).
func TestNewNeverReturnsAnIDFromAFailedSource(t *testing.T) {
	const child = "SLUICE_IDS_FAILING_SOURCE"
	if os.Getenv(child) == "1" {
		rand.Reader = failingSource{}
		defer func() {
			if r := recover(); r != nil {
				os.Stdout.WriteString("recovered a panic\n")
				os.Exit(0)
			}
		}()
		os.Stdout.WriteString("returned " + New(Execution) + "\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNewNeverReturnsAnIDFromAFailedSource$")
	cmd.Env = append(os.Environ(), child+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child ended normally: %s", out)
	}
	for _, bad := range []string{"returned", "recovered a panic"} {
		if strings.Contains(string(out), bad) {
			t.Fatalf("New with a failed source: %s", out)
		}
	}
	if !strings.Contains(string(out), "fatal error: crypto/rand: failed to read random data") {
		t.Fatalf("the child did not end with crypto/rand's fatal error: %s", out)
	}
}
