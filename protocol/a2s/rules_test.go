package a2s_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2s"
)

func fired(ds []a2s.Diagnostic, rule string) bool {
	return slices.ContainsFunc(ds, func(d a2s.Diagnostic) bool { return d.Rule == rule })
}

// fixtures returns the lint inputs named after rule: RULE.* fire it,
// RULE.ok.* do not.
func fixtures(t *testing.T, rule string) (bad, ok []string) {
	for _, in := range lintInputs(t) {
		base := filepath.Base(in)
		if !strings.HasPrefix(base, rule+".") {
			continue
		}
		if strings.HasPrefix(base, rule+".ok.") {
			ok = append(ok, in)
		} else {
			bad = append(bad, in)
		}
	}
	return bad, ok
}

// TestEveryRuleFiresAndHolds: each rule has a document that makes it fire and
// a near-identical one that does not.
func TestEveryRuleFiresAndHolds(t *testing.T) {
	for _, r := range a2s.Rules {
		t.Run(r.ID, func(t *testing.T) {
			bad, ok := fixtures(t, r.ID)
			if len(bad) == 0 || len(ok) == 0 {
				t.Fatalf("rule %s needs testdata/lint/%s.yaml (fires) and %s.ok.yaml (does not): have %v %v", r.ID, r.ID, r.ID, bad, ok)
			}
			for _, in := range bad {
				if ds := lintPath(t, in); !fired(ds, r.ID) {
					t.Errorf("%s does not fire %s:\n%s", in, r.ID, formatDiagnostics(ds))
				}
			}
			for _, in := range ok {
				if ds := lintPath(t, in); fired(ds, r.ID) {
					t.Errorf("%s fires %s:\n%s", in, r.ID, formatDiagnostics(ds))
				}
			}
		})
	}
}

func TestRuleTable(t *testing.T) {
	idRe := regexp.MustCompile(`^A2S\d{3}$`)
	for i, r := range a2s.Rules {
		if !idRe.MatchString(r.ID) || r.Summary == "" {
			t.Errorf("bad rule %+v", r)
		}
		if r.Severity != a2s.SeverityError && r.Severity != a2s.SeverityWarning {
			t.Errorf("rule %s has severity %q", r.ID, r.Severity)
		}
		if i > 0 && a2s.Rules[i-1].ID >= r.ID {
			t.Errorf("rules out of order or repeated at %s", r.ID)
		}
	}
}

// TestDiagnosticsUseKnownRules: every diagnostic of the goldens carries a rule
// of the table with its severity, and a position.
func TestDiagnosticsUseKnownRules(t *testing.T) {
	sev := map[string]a2s.Severity{}
	for _, r := range a2s.Rules {
		sev[r.ID] = r.Severity
	}
	for _, in := range lintInputs(t) {
		for _, d := range lintPath(t, in) {
			if s, ok := sev[d.Rule]; !ok || s != d.Severity {
				t.Errorf("%s: %v has an unknown rule or the wrong severity", in, d)
			}
			if d.Line < 1 || d.Col < 1 || d.File == "" || d.Message == "" {
				t.Errorf("%s: %v lacks a position or a message", in, d)
			}
		}
	}
}

// TestSpecExample: the spec's example, corrected as RESOLUTIONS says, has no
// error in either syntax; its one warning is the lifecycle "flow" the spec
// uses, read as task.
func TestSpecExample(t *testing.T) {
	for _, in := range []string{"testdata/weather.yaml", "testdata/weather.json"} {
		ds := lintFile(t, in)
		if len(ds) != 1 || ds[0].Rule != a2s.RuleLifecycleAlias {
			t.Errorf("%s: want only the lifecycle warning, got:\n%s", in, formatDiagnostics(ds))
		}
	}
}

// TestDocsListEveryRule: docs/protocols/a2s.md has a row for each rule with
// its severity.
func TestDocsListEveryRule(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocols", "a2s.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a2s.Rules {
		row := regexp.MustCompile(`(?m)^\| ` + r.ID + ` \| ` + string(r.Severity) + ` \|`)
		if !row.Match(doc) {
			t.Errorf("docs/protocols/a2s.md has no row `| %s | %s | ...`", r.ID, r.Severity)
		}
	}
}
