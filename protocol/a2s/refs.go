package a2s

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The reference syntaxes of A2S: paths (getWeather.outputs.temperature),
// {..} templates, conditions and logic lines. Parsing here is syntax only;
// whether a path names something declared is the linter's business.

// isIdent reports whether s is a name usable as a path segment: letters,
// digits, _ and -, not starting with a digit or -.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r == '-' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// reservedRoots cannot be task ids: a path starting with them means something
// else.
var reservedRoots = map[string]bool{ScopeInputs: true, ScopeOutputs: true, ScopeCapability: true}

// parsePath reads a reference path. Segments are names, optionally followed
// by [N] indexes (items[0]).
func parsePath(raw string, pos Pos) (*Path, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, fmt.Errorf("empty path")
	}
	segs := strings.Split(s, ".")
	for _, seg := range segs {
		name, _, ok := strings.Cut(seg, "[")
		if !isIdent(name) {
			return nil, fmt.Errorf("%q is not a path: segment %q is not a name", raw, seg)
		}
		if ok && !validIndexes(seg[len(name):]) {
			return nil, fmt.Errorf("%q is not a path: bad index in %q", raw, seg)
		}
	}
	p := &Path{Raw: s, Pos: pos}
	root := segs[0]
	switch {
	case reservedRoots[root]:
		if len(segs) < 2 {
			return nil, fmt.Errorf("%q names no %s field: write %s.NAME", raw, root, root)
		}
		p.Scope, p.Name, p.Rest = root, segs[1], segs[2:]
	case len(segs) >= 3 && segs[1] == "outputs":
		p.Scope, p.Task, p.Name, p.Rest = ScopeTask, root, segs[2], segs[3:]
	default:
		return nil, fmt.Errorf("%q is not a path: write inputs.NAME, outputs.NAME, capability.NAME or TASK.outputs.NAME", raw)
	}
	p.Name, _, _ = strings.Cut(p.Name, "[")
	if len(p.Rest) == 0 {
		p.Rest = nil
	}
	return p, nil
}

func validIndexes(s string) bool {
	for s != "" {
		if s[0] != '[' {
			return false
		}
		end := strings.IndexByte(s, ']')
		if end < 2 {
			return false
		}
		if _, err := strconv.ParseUint(s[1:end], 10, 31); err != nil {
			return false
		}
		s = s[end+1:]
	}
	return true
}

// String writes the path as it reads.
func (p *Path) String() string { return p.Raw }

// parseTemplate splits a {..} template into text and placeholders. {{ and }}
// are literal braces. Each placeholder is given to placeholder, which returns
// the path it stands for.
func parseTemplate(raw string, placeholder func(string) (*Path, error)) ([]TemplatePart, error) {
	var parts []TemplatePart
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			parts = append(parts, TemplatePart{Text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '{' && i+1 < len(raw) && raw[i+1] == '{':
			text.WriteByte('{')
			i++
		case c == '}' && i+1 < len(raw) && raw[i+1] == '}':
			text.WriteByte('}')
			i++
		case c == '}':
			return nil, fmt.Errorf("'}' at offset %d closes no '{' (write }} for a literal brace)", i)
		case c == '{':
			end := strings.IndexAny(raw[i+1:], "{}")
			if end < 0 || raw[i+1+end] == '{' {
				return nil, fmt.Errorf("'{' at offset %d is not closed (write {{ for a literal brace)", i)
			}
			inner := strings.TrimSpace(raw[i+1 : i+1+end])
			if inner == "" {
				return nil, fmt.Errorf("empty placeholder {} at offset %d", i)
			}
			p, err := placeholder(inner)
			if err != nil {
				return nil, err
			}
			flush()
			parts = append(parts, TemplatePart{Path: p})
			i += 1 + end
		default:
			text.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

// isTemplate tells a template mapping from a path mapping.
func isTemplate(s string) bool { return strings.ContainsAny(s, "{}") }

// comparison operators of conditions, longest first so ">=" is not read as ">".
var conditionOps = []string{"==", "!=", ">=", "<=", ">", "<"}

// parseCondition reads `{path} op value`, `{path}` or a bare path.
func parseCondition(raw string, pos Pos) (*Condition, error) {
	s := strings.TrimSpace(raw)
	c := &Condition{Raw: raw, Pos: pos}
	left, rest, err := conditionOperand(s)
	if err != nil {
		return nil, err
	}
	if left.Path == nil {
		return nil, fmt.Errorf("condition %q must start with a path ({path} or a bare path)", raw)
	}
	c.Left = left.Path
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return c, nil
	}
	for _, op := range conditionOps {
		if strings.HasPrefix(rest, op) {
			c.Op = op
			break
		}
	}
	if c.Op == "" {
		return nil, fmt.Errorf("condition %q: expected an operator (%s) after %s", raw, strings.Join(conditionOps, " "), left.Raw)
	}
	right, tail, err := conditionOperand(strings.TrimSpace(rest[len(c.Op):]))
	if err != nil {
		return nil, fmt.Errorf("condition %q: %v", raw, err)
	}
	if strings.TrimSpace(tail) != "" {
		return nil, fmt.Errorf("condition %q: unexpected %q after the value", raw, strings.TrimSpace(tail))
	}
	c.Right = right
	return c, nil
}

// conditionOperand reads one operand at the start of s: {path}, a bare path
// (left side only is useful), a quoted string, a number, true, false or null.
func conditionOperand(s string) (*Operand, string, error) {
	if s == "" {
		return nil, "", fmt.Errorf("expected a value")
	}
	switch s[0] {
	case '{':
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return nil, "", fmt.Errorf("'{' is not closed")
		}
		p, err := parsePath(s[1:end], Pos{})
		if err != nil {
			return nil, "", err
		}
		return &Operand{Path: p, Raw: s[:end+1]}, s[end+1:], nil
	case '"', '\'':
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return nil, "", fmt.Errorf("string %s is not closed", s)
		}
		return &Operand{Value: s[1 : end+1], Raw: s[:end+2]}, s[end+2:], nil
	}
	word := s
	if i := strings.IndexAny(s, " \t=!<>"); i >= 0 {
		word = s[:i]
	}
	rest := s[len(word):]
	if word == "" {
		return nil, "", fmt.Errorf("unexpected %q; expected a value", s)
	}
	switch word {
	case "true":
		return &Operand{Value: true, Raw: word}, rest, nil
	case "false":
		return &Operand{Value: false, Raw: word}, rest, nil
	case "null":
		return &Operand{Raw: word}, rest, nil
	}
	if f, err := strconv.ParseFloat(word, 64); err == nil && !strings.ContainsAny(word, "xXpP_") && isFinite(f) {
		return &Operand{Value: f, Raw: word}, rest, nil
	}
	p, err := parsePath(word, Pos{})
	if err != nil {
		return nil, "", fmt.Errorf("%q is not a value: use {path}, a number, true, false, null or a quoted string", word)
	}
	return &Operand{Path: p, Raw: word}, rest, nil
}

// parseLogic reads definition.logic: one `name = expression` a line; blank
// lines and lines starting with # or // are skipped.
func parseLogic(src string, pos Pos) ([]LogicLine, []error) {
	var out []LogicLine
	var errs []error
	for i, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") {
			continue
		}
		name, expr, ok := strings.Cut(t, "=")
		name, expr = strings.TrimSpace(name), strings.TrimSpace(expr)
		switch {
		case !ok || strings.HasPrefix(expr, "="):
			errs = append(errs, fmt.Errorf("logic line %d %q is not `name = expression`", i+1, t))
		case !isIdent(name) || strings.Contains(name, "-"):
			errs = append(errs, fmt.Errorf("logic line %d: %q is not a name to assign", i+1, name))
		case expr == "":
			errs = append(errs, fmt.Errorf("logic line %d: nothing after %s =", i+1, name))
		case !balanced(expr):
			errs = append(errs, fmt.Errorf("logic line %d: unbalanced brackets or quotes in %q", i+1, expr))
		default:
			out = append(out, LogicLine{Pos: pos, Name: name, Expr: expr})
		}
	}
	return out, errs
}

// balanced checks brackets and quotes of an expression; the expression
// language (expr-lang, in the engine) checks the rest when it compiles.
func balanced(s string) bool {
	var stack []byte
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'', '`':
			quote = c
		case '(', '[', '{':
			stack = append(stack, c)
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return quote == 0 && len(stack) == 0
}

func isFinite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }
