package ids

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// randomSources are the files besides this package that may draw from
// crypto/rand, and why. Everything else makes its identifiers with New.
var randomSources = map[string]string{
	"internal/policy/apikey.go":   "API keys are secrets",
	"internal/vault/seal.go":      "AES-GCM nonces are secret material",
	"internal/vault/masterkey.go": "master keys are secrets",
	"internal/config/keyfile.go":  "key files hold secrets",
	"protocol/session/message.go": "message ids: a protocol codec imports only the standard library",
	"protocol/e2a/stream.go":      "response UUIDs: a protocol codec imports only the standard library",
	"protocol/e2a/a2a_write.go":   "A2A task ids: a protocol codec imports only the standard library",
}

// TestOnlyIDsAndSecretsDrawRandomBytes fails when a file outside this package
// and randomSources imports crypto/rand (a new id helper would be the
// sixteenth), or calls math/rand's Read (predictable bytes, worse still).
func TestOnlyIDsAndSecretsDrawRandomBytes(t *testing.T) {
	top, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(top, "go.mod")); err != nil {
		t.Fatalf("the module root is not two folders up: %v", err)
	}
	drawing := map[string]bool{}
	err = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != top && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(top, path)
		rel = filepath.ToSlash(rel)
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Errorf("parse %s: %v", rel, err)
			return nil
		}
		for _, imp := range file.Imports {
			switch p, _ := strconv.Unquote(imp.Path.Value); p {
			case "crypto/rand":
				drawing[rel] = true
			case "math/rand":
				if callsRead(file, localName(imp, "rand")) {
					t.Errorf("%s calls math/rand's Read: identifiers come from ids.New, secrets from crypto/rand", rel)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range slices.Sorted(maps.Keys(drawing)) {
		if _, ok := randomSources[file]; !ok && filepath.ToSlash(filepath.Dir(file)) != "internal/ids" {
			t.Errorf("%s imports crypto/rand: make identifiers with ids.New (a new format is a new Kind in internal/ids/kinds.go); a secret maker belongs in randomSources", file)
		}
	}
	for file := range randomSources {
		if !drawing[file] {
			t.Errorf("%s is listed in randomSources but draws no random bytes: drop it from the list", file)
		}
	}
}

// localName is the name a file uses for an import: its alias, else the
// package's own name.
func localName(imp *ast.ImportSpec, own string) string {
	if imp.Name != nil {
		return imp.Name.Name
	}
	return own
}

// callsRead reports whether file calls pkg.Read.
func callsRead(file *ast.File, pkg string) bool {
	found := false
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Read" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == pkg {
				found = true
			}
		}
		return !found
	})
	return found
}
