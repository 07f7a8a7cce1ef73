package a2s

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Versions are Semantic Versioning 2.0 (Masterminds/semver parses them and
// orders them, prereleases included). Constraints are npm's ranges
// (node-semver): ^1.0.0, ~1.2, >=1 <2, ||, x-ranges, hyphen ranges.
//
// The range grammar is ours, not semver.NewConstraint, because Masterminds'
// ranges differ from npm's where it matters for dependency resolution:
//   - a prerelease version satisfies a Masterminds range when any comparator
//     of the AND group has a prerelease; npm requires a comparator with a
//     prerelease on the same MAJOR.MINOR.PATCH (>=1.0.0-beta <2 admits
//     1.0.0-rc.1 but not 1.5.0-alpha);
//   - Masterminds accepts commas as AND and the operators => and =<, which
//     npm refuses;
//   - Masterminds treats "1.2.3 - 2.3" as <=2.3 with its own x-handling,
//     npm as <2.4.0-0; they agree on released versions but not on
//     prereleases.
// Everything npm's grammar accepts is desugared here into comparators
// exactly as node-semver does (including the -0 upper bounds), and the
// comparators use Masterminds' ordering.

// ParseVersion reads a strict semantic version (MAJOR.MINOR.PATCH with
// optional -prerelease and +build; no "v", no missing parts).
func ParseVersion(s string) (*semver.Version, error) {
	v, err := semver.StrictNewVersion(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a semantic version MAJOR.MINOR.PATCH: %v", s, err)
	}
	return v, nil
}

// Constraint is an npm-style version range.
type Constraint struct {
	raw  string
	sets [][]comparator // OR of ANDs
}

type comparator struct {
	op string // <, <=, >, >=, = ; "" matches anything
	v  *semver.Version
}

// MaxConstraintLen bounds a constraint string.
const MaxConstraintLen = 256

// partialRe is node-semver's partial version: x-ranges, optional minor and
// patch, prerelease and build only after a full version.
var partialRe = regexp.MustCompile(`^v?(0|[1-9]\d*|[xX*])(?:\.(0|[1-9]\d*|[xX*])(?:\.(0|[1-9]\d*|[xX*])` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?)?)?$`)

// partial is a parsed partial version; -1 marks an x (or missing) part.
type partial struct {
	major, minor, patch int64
	pre                 string
}

func parsePartial(s string) (partial, error) {
	m := partialRe.FindStringSubmatch(s)
	if m == nil {
		return partial{}, fmt.Errorf("%q is not a version", s)
	}
	p := partial{major: -1, minor: -1, patch: -1, pre: m[4]}
	for i, dst := range []*int64{&p.major, &p.minor, &p.patch} {
		part := m[i+1]
		if part == "" || part == "x" || part == "X" || part == "*" {
			break
		}
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil || n > 1<<53-1 {
			return partial{}, fmt.Errorf("%q: %s is too large", s, part)
		}
		*dst = n
	}
	if p.patch < 0 && p.pre != "" {
		return partial{}, fmt.Errorf("%q: a prerelease needs a full version", s)
	}
	return p, nil
}

func ver(major, minor, patch int64, pre string) *semver.Version {
	return semver.New(uint64(major), uint64(minor), uint64(patch), pre, "")
}

// ParseConstraint reads an npm range.
func ParseConstraint(s string) (*Constraint, error) {
	if len(s) > MaxConstraintLen {
		return nil, fmt.Errorf("constraint is longer than %d bytes", MaxConstraintLen)
	}
	c := &Constraint{raw: s}
	for _, alt := range strings.Split(s, "||") {
		set, err := parseRange(strings.TrimSpace(alt))
		if err != nil {
			return nil, fmt.Errorf("constraint %q: %v", s, err)
		}
		c.sets = append(c.sets, set)
	}
	return c, nil
}

func (c *Constraint) String() string { return c.raw }

var opRe = regexp.MustCompile(`^(<=|>=|<|>|=|~>?|\^)?\s*`)

func parseRange(s string) ([]comparator, error) {
	if s == "" {
		return []comparator{{}}, nil
	}
	// Hyphen range: "A - B" (spaces around the hyphen are required).
	if a, b, ok := strings.Cut(s, " - "); ok {
		return hyphen(strings.TrimSpace(a), strings.TrimSpace(b))
	}
	// Operators may be followed by spaces (">= 1.2.3"): join them to their
	// version before splitting on spaces.
	var words []string
	fields := strings.Fields(s)
	for i := 0; i < len(fields); i++ {
		w := fields[i]
		if opRe.FindString(w) == w && i+1 < len(fields) {
			w += fields[i+1]
			i++
		}
		words = append(words, w)
	}
	var out []comparator
	for _, w := range words {
		cs, err := simple(w)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

func simple(w string) ([]comparator, error) {
	op := opRe.FindStringSubmatch(w)[1]
	rest := strings.TrimSpace(w[len(opRe.FindString(w)):])
	if rest == "" {
		return nil, fmt.Errorf("%q has no version", w)
	}
	p, err := parsePartial(rest)
	if err != nil {
		return nil, err
	}
	switch op {
	case "^":
		return caret(p), nil
	case "~", "~>": // node-semver reads ~> as ~
		return tilde(p), nil
	case "", "=":
		return xrange(p), nil
	}
	return primitive(op, p), nil
}

// xrange: 1.2.3 is =1.2.3; 1.2 and 1.2.x are >=1.2.0 <1.3.0-0; * is any.
func xrange(p partial) []comparator {
	switch {
	case p.major < 0:
		return []comparator{{}}
	case p.minor < 0:
		return []comparator{{">=", ver(p.major, 0, 0, "")}, {"<", ver(p.major+1, 0, 0, "0")}}
	case p.patch < 0:
		return []comparator{{">=", ver(p.major, p.minor, 0, "")}, {"<", ver(p.major, p.minor+1, 0, "0")}}
	}
	return []comparator{{"=", ver(p.major, p.minor, p.patch, p.pre)}}
}

// tilde: patch-level changes if a minor is given, minor-level if not.
func tilde(p partial) []comparator {
	switch {
	case p.major < 0:
		return []comparator{{}}
	case p.minor < 0:
		return []comparator{{">=", ver(p.major, 0, 0, "")}, {"<", ver(p.major+1, 0, 0, "0")}}
	case p.patch < 0:
		return []comparator{{">=", ver(p.major, p.minor, 0, "")}, {"<", ver(p.major, p.minor+1, 0, "0")}}
	}
	return []comparator{{">=", ver(p.major, p.minor, p.patch, p.pre)}, {"<", ver(p.major, p.minor+1, 0, "0")}}
}

// caret: changes that do not modify the left-most non-zero part.
func caret(p partial) []comparator {
	switch {
	case p.major < 0:
		return []comparator{{}}
	case p.minor < 0:
		return []comparator{{">=", ver(p.major, 0, 0, "")}, {"<", ver(p.major+1, 0, 0, "0")}}
	case p.patch < 0:
		if p.major == 0 {
			return []comparator{{">=", ver(0, p.minor, 0, "")}, {"<", ver(0, p.minor+1, 0, "0")}}
		}
		return []comparator{{">=", ver(p.major, p.minor, 0, "")}, {"<", ver(p.major+1, 0, 0, "0")}}
	}
	lo := comparator{">=", ver(p.major, p.minor, p.patch, p.pre)}
	switch {
	case p.major > 0:
		return []comparator{lo, {"<", ver(p.major+1, 0, 0, "0")}}
	case p.minor > 0:
		return []comparator{lo, {"<", ver(0, p.minor+1, 0, "0")}}
	}
	return []comparator{lo, {"<", ver(0, 0, p.patch+1, "0")}}
}

// primitive: <, <=, >, >= with x-ranges filled the way node-semver does.
func primitive(op string, p partial) []comparator {
	if p.major < 0 {
		if op == "<" || op == ">" {
			return []comparator{{"<", ver(0, 0, 0, "0")}} // matches nothing
		}
		return []comparator{{}}
	}
	if p.patch >= 0 {
		return []comparator{{op, ver(p.major, p.minor, p.patch, p.pre)}}
	}
	minor := max(p.minor, 0)
	switch op {
	case ">": // >1 is >=2.0.0, >1.2 is >=1.3.0
		if p.minor < 0 {
			return []comparator{{">=", ver(p.major+1, 0, 0, "")}}
		}
		return []comparator{{">=", ver(p.major, p.minor+1, 0, "")}}
	case ">=":
		return []comparator{{">=", ver(p.major, minor, 0, "")}}
	case "<": // <1.2 is <1.2.0-0
		return []comparator{{"<", ver(p.major, minor, 0, "0")}}
	}
	// <=1 is <2.0.0-0, <=1.2 is <1.3.0-0
	if p.minor < 0 {
		return []comparator{{"<", ver(p.major+1, 0, 0, "0")}}
	}
	return []comparator{{"<", ver(p.major, p.minor+1, 0, "0")}}
}

// hyphen: A - B is >=A <=B, with a partial A filled with zeros and a partial
// B as the x-range's upper bound.
func hyphen(a, b string) ([]comparator, error) {
	pa, err := parsePartial(a)
	if err != nil {
		return nil, err
	}
	pb, err := parsePartial(b)
	if err != nil {
		return nil, err
	}
	var out []comparator
	if pa.major >= 0 {
		out = append(out, comparator{">=", ver(pa.major, max(pa.minor, 0), max(pa.patch, 0), pa.pre)})
	}
	switch {
	case pb.major < 0:
	case pb.minor < 0:
		out = append(out, comparator{"<", ver(pb.major+1, 0, 0, "0")})
	case pb.patch < 0:
		out = append(out, comparator{"<", ver(pb.major, pb.minor+1, 0, "0")})
	default:
		out = append(out, comparator{"<=", ver(pb.major, pb.minor, pb.patch, pb.pre)})
	}
	if len(out) == 0 {
		out = []comparator{{}}
	}
	return out, nil
}

func (c comparator) test(v *semver.Version) bool {
	if c.v == nil {
		return true
	}
	cmp := v.Compare(c.v)
	switch c.op {
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	case ">=":
		return cmp >= 0
	}
	return cmp == 0
}

// Check reports whether v satisfies the range. As in npm, a prerelease
// satisfies only a set that names a prerelease of the same MAJOR.MINOR.PATCH.
func (c *Constraint) Check(v *semver.Version) bool {
	for _, set := range c.sets {
		if testSet(set, v) {
			return true
		}
	}
	return false
}

func testSet(set []comparator, v *semver.Version) bool {
	for _, c := range set {
		if !c.test(v) {
			return false
		}
	}
	if v.Prerelease() == "" {
		return true
	}
	for _, c := range set {
		if c.v != nil && c.v.Prerelease() != "" &&
			c.v.Major() == v.Major() && c.v.Minor() == v.Minor() && c.v.Patch() == v.Patch() {
			return true
		}
	}
	return false
}

// CheckString parses v strictly and checks it.
func (c *Constraint) CheckString(v string) (bool, error) {
	sv, err := ParseVersion(v)
	if err != nil {
		return false, err
	}
	return c.Check(sv), nil
}
