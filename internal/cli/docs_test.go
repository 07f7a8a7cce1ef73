package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCLIDocIsCurrent fails when docs/cli.md is not what the command tree
// generates: a command, flag or help text changed without the reference.
func TestCLIDocIsCurrent(t *testing.T) {
	want, err := CLIReference()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", CLIDocPath))
	if err != nil {
		t.Fatalf("%v: generate it with `go run ./cmd/sluice docs` from the repository root", err)
	}
	if !bytes.Equal(got, want) {
		line := 1 + bytes.Count(got[:commonPrefix(got, want)], []byte("\n"))
		t.Fatalf("%s is not current (it first differs at line %d): regenerate it with `go run ./cmd/sluice docs` from the repository root", CLIDocPath, line)
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
