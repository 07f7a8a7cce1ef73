package a2s_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2s"
)

func seed(f *testing.F, ext ...string) {
	f.Helper()
	var files []string
	for _, pattern := range []string{"testdata/*", "testdata/*/*", "testdata/lint/*.set/*"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	for _, file := range files {
		if !slicesContains(ext, filepath.Ext(file)) {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// Inputs that once broke YAML parsers.
	for _, s := range []string{"00\n---", "a: &a [*a]", "? - x\n: y", "a: !!binary aGk=", "<<: [*x]", "{\"a\":[1e999]}", "\xef\xbb\xbf{}", "a: '\\u0000'"} {
		f.Add([]byte(s))
	}
}

var bom = []byte("\xef\xbb\xbf")

func slicesContains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

var knownRules = func() map[string]a2s.Severity {
	m := map[string]a2s.Severity{}
	for _, r := range a2s.Rules {
		m[r.ID] = r.Severity
	}
	return m
}()

// checkParsed: a failure is an *a2s.Error of a read rule with a position; a
// tree normalizes and lints without panicking, every diagnostic of a known
// rule; the canonical form is JSON that reads back to itself with the same
// checksum.
func checkParsed(t *testing.T, data []byte, tree *a2s.Node, err error) {
	t.Helper()
	if err != nil {
		var e *a2s.Error
		if !errors.As(err, &e) || (e.Rule != a2s.RuleSyntax && e.Rule != a2s.RuleLimit) || e.Message == "" || e.Pos.Line < 0 || e.Pos.Col < 0 {
			t.Fatalf("bad error %#v for %q", err, data)
		}
		return
	}
	d := a2s.Normalize(tree, "fuzz")
	for _, diag := range a2s.Lint(d) {
		if sev, ok := knownRules[diag.Rule]; !ok || sev != diag.Severity || diag.Message == "" {
			t.Fatalf("bad diagnostic %+v for %q", diag, data)
		}
	}
	canon, err := a2s.Canonical(tree)
	if errors.Is(err, a2s.ErrCanonicalTooLarge) {
		return
	}
	if err != nil {
		t.Fatalf("canonical: %v for %q", err, data)
	}
	if !json.Valid(canon) {
		t.Fatalf("canonical form is not JSON: %q", canon)
	}
	back, err := a2s.ParseTree(canon, a2s.Options{Format: a2s.FormatJSON, Limits: a2s.Limits{MaxBytes: a2s.MaxCanonicalBytes, MaxDepth: 1000, MaxNodes: 1 << 30}})
	if err != nil {
		t.Fatalf("canonical form does not read back: %v\n%q", err, canon)
	}
	again, err := a2s.Canonical(back)
	if err != nil || !bytes.Equal(again, canon) {
		t.Fatalf("canonical form is not stable:\n%q\n%q", canon, again)
	}
	s1, err1 := a2s.ComputeChecksum(tree)
	s2, err2 := a2s.ComputeChecksum(back)
	if err1 != nil || err2 != nil || s1 != s2 {
		t.Fatalf("checksums differ: %s %v / %s %v", s1, err1, s2, err2)
	}
}

func FuzzParseYAML(f *testing.F) {
	seed(f, ".yaml", ".yml", ".json")
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, err := a2s.ParseTree(data, a2s.Options{Format: a2s.FormatYAML, Limits: a2s.Limits{MaxNodes: 20000}})
		checkParsed(t, data, tree, err)
	})
}

// FuzzParseJSON also compares with encoding/json: what we accept it accepts
// with the same values; what it accepts and we refuse is refused for a
// reason of ours (a duplicate key, a limit, invalid UTF-8, a number out of
// range).
func FuzzParseJSON(f *testing.F) {
	seed(f, ".json")
	f.Add([]byte(`{"a":"\ud800","b":[-0.0,1E+2,0.1e-1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, err := a2s.ParseTree(data, a2s.Options{Format: a2s.FormatJSON})
		checkParsed(t, data, tree, err)
		// RFC 8259 lets a parser ignore a byte order mark; we do.
		var ref any
		refErr := json.Unmarshal(bytes.TrimPrefix(data, bom), &ref)
		if err == nil {
			if refErr != nil {
				t.Fatalf("we accept what encoding/json refuses (%v): %q", refErr, data)
			}
			if !reflect.DeepEqual(tree.Interface(), ref) {
				t.Fatalf("values differ from encoding/json for %q", data)
			}
			return
		}
		if refErr == nil {
			var e *a2s.Error
			errors.As(err, &e)
			ok := e.Rule == a2s.RuleLimit || strings.Contains(e.Message, "duplicate key") ||
				strings.Contains(e.Message, "UTF-8") || strings.Contains(e.Message, "range of a double")
			if !ok {
				t.Fatalf("encoding/json accepts what we refuse (%v): %q", err, data)
			}
		}
	})
}

// FuzzCanonical: the canonical form of any JSON value holds the same values,
// and canonicalizing it again changes nothing.
func FuzzCanonical(f *testing.F) {
	seed(f, ".json")
	for _, s := range []string{`[1e21,1e-7,-0,5e-324,0.1,100,1.7976931348623157e308]`, `{"\u20ac":1,"\r":2,"\ud83d\ude00":3,"\ufb33":4}`, `"\u0001\"\\\/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, err := a2s.ParseTree(data, a2s.Options{Format: a2s.FormatJSON})
		if err != nil {
			return
		}
		canon, err := a2s.Canonical(tree)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(bytes.TrimPrefix(data, bom), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(canon, &b); err != nil {
			t.Fatalf("canonical form is not JSON: %v %q", err, canon)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("canonical form changes values: %q -> %q", data, canon)
		}
	})
}

// FuzzConstraint: any string parses or is refused, and a parsed range checks
// versions without panicking.
func FuzzConstraint(f *testing.F) {
	for _, s := range []string{"^1.2.3", "~1.2 || >=3.0.0-rc.1 <4", "1.2.3 - 2.3", "*", "", ">=*", "^0.0.x", "v1 - v2.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := a2s.ParseConstraint(s)
		if err != nil {
			return
		}
		for _, v := range []string{"0.0.0", "1.2.3", "1.2.3-rc.1", "99999999.0.0"} {
			if _, err := c.CheckString(v); err != nil {
				t.Fatal(err)
			}
		}
	})
}
