package a2s_test

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/sluicehq/sluice/protocol/a2s"
)

// TestNPMRanges checks every range of testdata/semver/npm.tsv against the
// answers node-semver (npm's own) gave for each version.
func TestNPMRanges(t *testing.T) {
	f, err := os.Open("testdata/semver/npm.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var versions []string
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "# range\tvalidity\tversions that satisfy it, of: "); ok {
			versions = strings.Fields(v)
			continue
		}
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		rng, err := strconv.Unquote(cols[0])
		if err != nil {
			t.Fatal(err)
		}
		n++
		c, err := a2s.ParseConstraint(rng)
		if cols[1] == "invalid" {
			if err == nil {
				t.Errorf("%q: npm refuses it, we accept it", rng)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: npm accepts it, we refuse it: %v", rng, err)
			continue
		}
		var want []string
		if len(cols) > 2 {
			want = strings.Fields(cols[2])
		}
		for _, v := range versions {
			got, err := c.CheckString(v)
			if err != nil {
				t.Fatal(err)
			}
			if got != slices.Contains(want, v) {
				t.Errorf("%q satisfied by %s: got %t, npm says %t", rng, v, got, !got)
			}
		}
	}
	if n < 70 || len(versions) < 40 {
		t.Fatalf("only %d ranges, %d versions", n, len(versions))
	}
}

// TestMastermindsDifferences keeps docs/protocols/a2s.md §7 true: these are
// the cases where Masterminds' own ranges answer differently from npm's,
// which is why ranges are desugared here.
func TestMastermindsDifferences(t *testing.T) {
	cases := []struct {
		rng, version string
		npm          bool
	}{
		{">=1.0.0-beta <2", "1.5.0-alpha", false},
		{">=1.0.0-beta <2", "1.0.0-rc.1", true},
	}
	for _, c := range cases {
		ours, err := a2s.ParseConstraint(c.rng)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := ours.CheckString(c.version); got != c.npm {
			t.Errorf("%q %s: got %t, npm %t", c.rng, c.version, got, c.npm)
		}
	}
	mc, err := semver.NewConstraint(">=1.0.0-beta <2")
	if err != nil {
		t.Fatal(err)
	}
	if !mc.Check(semver.MustParse("1.5.0-alpha")) {
		t.Error("Masterminds now agrees with npm on prereleases: update the docs")
	}
	for _, s := range []string{">=1.0.0, <2.0.0", "=>1.2.3", "=<1.2.3"} {
		if _, err := semver.NewConstraint(s); err != nil {
			t.Errorf("Masterminds refuses %q now: update the docs", s)
		}
		if _, err := a2s.ParseConstraint(s); err == nil {
			t.Errorf("%q: npm refuses it, we accept it", s)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for _, ok := range []string{"1.0.0", "0.0.0", "10.20.30", "1.0.0-rc.1+build.5", "1.0.0-0.3.7"} {
		if _, err := a2s.ParseVersion(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1", "1.0", "v1.0.0", "01.0.0", "1.0.0-", "1.0.0.0", "latest"} {
		if _, err := a2s.ParseVersion(bad); err == nil {
			t.Errorf("%q must be refused", bad)
		}
	}
	if _, err := a2s.ParseConstraint(strings.Repeat("1 ", 200)); err == nil {
		t.Error("an over-long constraint must be refused")
	}
}
