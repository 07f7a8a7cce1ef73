package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// decoder walks a YAML tree into a struct by its `yaml` tags and collects
// every problem instead of stopping at the first. goccy/go-yaml's parser gives
// each node its line and column; the walk itself is ours because a problem
// must name the key path and the position, and a value's form depends on the
// field (`unit:"ms"` durations take integers, `unit:"bytes"` sizes take units).
type decoder struct {
	file     string
	problems []Problem
	// at records where each key path's value was written, for the checks
	// that run after decoding.
	at map[string]Problem
	// failed marks key paths whose value did not decode: later checks of
	// them would only repeat the problem.
	failed map[string]bool
}

var durationType = reflect.TypeOf(time.Duration(0))

// decodeYAML decodes src over v (a pointer to a struct holding defaults).
func (d *decoder) decodeYAML(src []byte, v any) {
	f, err := parseYAML(src)
	if err != nil {
		d.problems = append(d.problems, d.syntaxProblem(err))
		return
	}
	for i, doc := range f.Docs {
		if i > 0 {
			d.add(doc, "", "the configuration must be one YAML document; remove the second `---`")
			return
		}
		if doc.Body == nil {
			continue // empty file or only comments: all defaults
		}
		d.value(doc.Body, reflect.ValueOf(v).Elem(), "", "")
	}
}

// parseYAML runs the parser, turning a panic on hostile input into an error:
// bad input never takes the server down.
func parseYAML(src []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("the YAML parser failed on this input")
		}
	}()
	return parser.ParseBytes(src, 0)
}

func (d *decoder) syntaxProblem(err error) Problem {
	p := Problem{File: d.file, Message: "YAML syntax: " + err.Error()}
	type tokened interface{ GetToken() *token.Token }
	type messaged interface{ GetMessage() string }
	if t, ok := err.(tokened); ok && t.GetToken() != nil {
		p.Line, p.Column = t.GetToken().Position.Line, t.GetToken().Position.Column
	}
	if m, ok := err.(messaged); ok {
		p.Message = "YAML syntax: " + m.GetMessage()
	}
	return p
}

// add records a problem at node n (nil: no position) for key path.
func (d *decoder) add(n ast.Node, path, format string, args ...any) {
	if d.failed == nil {
		d.failed = map[string]bool{}
	}
	d.failed[path] = true
	p := Problem{File: d.file, Path: path, Message: fmt.Sprintf(format, args...)}
	p.Line, p.Column = position(n)
	d.problems = append(d.problems, p)
}

// position is where n starts (0, 0 when unknown). Some nodes of the parser
// dereference missing parts in GetToken; that must not take us down.
func position(n ast.Node) (line, col int) {
	defer func() {
		if recover() != nil {
			line, col = 0, 0
		}
	}()
	if doc, ok := n.(*ast.DocumentNode); ok && doc.Start != nil {
		return doc.Start.Position.Line, doc.Start.Position.Column
	}
	if n == nil || n.GetToken() == nil {
		return 0, 0
	}
	tk := n.GetToken()
	return tk.Position.Line, tk.Position.Column
}

// value decodes n into v, the field at path with tag unit.
func (d *decoder) value(n ast.Node, v reflect.Value, path, unit string) {
	n, problem := unwrap(n)
	if problem != "" {
		d.add(n, path, "%s", problem)
		return
	}
	if d.at != nil && path != "" {
		p := Problem{File: d.file, Path: path}
		p.Line, p.Column = position(n)
		d.at[path] = p
	}
	switch {
	case v.Type() == durationType:
		d.duration(n, v, path, unit)
	case v.Kind() == reflect.Struct:
		d.mapping(n, v, path)
	case v.Kind() == reflect.String:
		if s, ok := stringOf(n); ok {
			v.SetString(s)
		} else {
			d.add(n, path, "want a string, got %s", describe(n))
		}
	case v.Kind() == reflect.Bool:
		if b, ok := n.(*ast.BoolNode); ok {
			v.SetBool(b.Value)
		} else {
			d.add(n, path, "want true or false, got %s", describe(n))
		}
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		d.integer(n, v, path, unit)
	case v.Kind() == reflect.Float64:
		d.number(n, v, path)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		d.strings(n, v, path)
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		d.namedEntries(n, v, path)
	default:
		d.add(n, path, "cannot be set from the file") // a field type this decoder does not know
	}
}

// unwrap skips anchors (&name: harmless) and refuses aliases and tags, which
// would let one key stand for another or change a value's type unseen.
func unwrap(n ast.Node) (ast.Node, string) {
	for {
		switch t := n.(type) {
		case *ast.AnchorNode:
			if t.Value == nil {
				return n, "an anchor needs a value"
			}
			n = t.Value
		case *ast.AliasNode:
			return n, "YAML aliases (*name) are not supported in the configuration; write the value out"
		case *ast.TagNode:
			return n, "YAML tags (!name) are not supported in the configuration"
		default:
			return n, ""
		}
	}
}

func (d *decoder) mapping(n ast.Node, v reflect.Value, path string) {
	if _, ok := n.(*ast.NullNode); ok && path != "" {
		return // `log:` with nothing under it: the defaults stand
	}
	m, ok := n.(*ast.MappingNode)
	if !ok {
		if path == "" {
			d.add(n, path, "the configuration must be a mapping of keys to values, got %s", describe(n))
		} else {
			d.add(n, path, "want a mapping of keys to values, got %s", describe(n))
		}
		return
	}
	fields := fieldsOf(v.Type())
	seen := map[string]int{}
	for _, kv := range m.Values {
		key, ok := kv.Key.(*ast.StringNode)
		if !ok || kv.Key.IsMergeKey() {
			d.add(kv.Key, path, "keys must be plain names, got %s", describe(kv.Key))
			continue
		}
		name := key.Value
		sub := join(path, name)
		if line, dup := seen[name]; dup {
			d.add(key, sub, "duplicate key (first at line %d)", line)
			continue
		}
		seen[name], _ = position(key)
		f, known := fields[name]
		if !known {
			d.unknownKey(key, path, name, fields)
			continue
		}
		d.value(kv.Value, v.Field(f.index), sub, f.unit)
	}
}

// namedEntries decodes a mapping whose keys the user chooses (names of MCP
// commands, say) into a map; each value decodes like a field. Entries merge
// over the defaults' (a file that sets one level of a2s.audit keeps the
// others).
func (d *decoder) namedEntries(n ast.Node, v reflect.Value, path string) {
	// A copy: the defaults' map may be shared.
	m := reflect.MakeMap(v.Type())
	for it := v.MapRange(); it.Next(); {
		m.SetMapIndex(it.Key(), it.Value())
	}
	v.Set(m)
	if _, ok := n.(*ast.NullNode); ok {
		return
	}
	mn, ok := n.(*ast.MappingNode)
	if !ok {
		d.add(n, path, "want a mapping of names to entries, got %s", describe(n))
		return
	}
	seen := map[string]int{}
	for _, kv := range mn.Values {
		key, ok := kv.Key.(*ast.StringNode)
		if !ok || kv.Key.IsMergeKey() {
			d.add(kv.Key, path, "names must be plain strings, got %s", describe(kv.Key))
			continue
		}
		sub := join(path, key.Value)
		if line, dup := seen[key.Value]; dup {
			d.add(key, sub, "duplicate name (first at line %d)", line)
			continue
		}
		seen[key.Value], _ = position(key)
		elem := reflect.New(v.Type().Elem()).Elem()
		d.value(kv.Value, elem, sub, "")
		m.SetMapIndex(reflect.ValueOf(key.Value).Convert(v.Type().Key()), elem)
	}
}

func (d *decoder) unknownKey(key ast.Node, path, name string, fields map[string]field) {
	sub := join(path, name)
	if sub == "admin_key" {
		d.add(key, sub, "the admin key is not read from the config file; set SLUICE_ADMIN_KEY or name a 0600 file in admin_key_file")
		return
	}
	best, bestDist := "", 3
	for known := range fields {
		if dist := a2e.EditDistance(name, known); dist < bestDist || dist == bestDist && known < best {
			best, bestDist = known, dist
		}
	}
	if best != "" {
		d.add(key, sub, "unknown key %q; did you mean %q?", name, best)
		return
	}
	names := make([]string, 0, len(fields))
	for known := range fields {
		names = append(names, known)
	}
	slices.Sort(names)
	where := "the top level"
	if path != "" {
		where = path
	}
	d.add(key, sub, "unknown key %q; %s takes %s", name, where, strings.Join(names, ", "))
}

func (d *decoder) duration(n ast.Node, v reflect.Value, path, unit string) {
	if i, ok := n.(*ast.IntegerNode); ok {
		ms, ok := int64Of(i)
		if unit != "ms" || !ok {
			d.add(n, path, "want a duration with a unit such as \"30s\", got %s", describe(n))
			return
		}
		if ms < 0 || ms > math.MaxInt64/int64(time.Millisecond) {
			d.add(n, path, "%d ms is out of range", ms)
			return
		}
		v.SetInt(ms * int64(time.Millisecond))
		return
	}
	s, ok := stringOf(n)
	if !ok {
		d.add(n, path, "want a duration such as \"30s\", got %s", describe(n))
		return
	}
	dur, err := parseDuration(s, unit)
	if err != nil {
		d.add(n, path, "%v", err)
		return
	}
	v.SetInt(int64(dur))
}

func (d *decoder) integer(n ast.Node, v reflect.Value, path, unit string) {
	if s, ok := stringOf(n); ok && unit == "bytes" {
		size, err := parseSize(s)
		if err != nil {
			d.add(n, path, "%v", err)
			return
		}
		v.SetInt(size)
		return
	}
	i, ok := n.(*ast.IntegerNode)
	if !ok {
		what := "an integer"
		if unit == "bytes" {
			what = "a size such as 1048576 or \"1MiB\""
		}
		d.add(n, path, "want %s, got %s", what, describe(n))
		return
	}
	x, ok := int64Of(i)
	if !ok || v.OverflowInt(x) {
		d.add(n, path, "%s is out of range", i.GetToken().Value)
		return
	}
	v.SetInt(x)
}

// number sets a float field from a YAML number (1, 0.25, 1e-3); not from
// .inf or .nan, which no setting means.
func (d *decoder) number(n ast.Node, v reflect.Value, path string) {
	switch t := n.(type) {
	case *ast.FloatNode:
		if math.IsInf(t.Value, 0) || math.IsNaN(t.Value) {
			d.add(n, path, "want a finite number, got %s", t.GetToken().Value)
			return
		}
		v.SetFloat(t.Value)
	case *ast.IntegerNode:
		x, ok := int64Of(t)
		if !ok {
			d.add(n, path, "%s is out of range", t.GetToken().Value)
			return
		}
		v.SetFloat(float64(x))
	case *ast.InfinityNode, *ast.NanNode:
		d.add(n, path, "want a finite number, got %s", n.GetToken().Value)
	default:
		d.add(n, path, "want a number, got %s", describe(n))
	}
}

func (d *decoder) strings(n ast.Node, v reflect.Value, path string) {
	if _, ok := n.(*ast.NullNode); ok {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.add(n, path, "want a list, got %s", describe(n))
		return
	}
	out := make([]string, 0, len(seq.Values))
	for i, item := range seq.Values {
		item, problem := unwrap(item)
		sub := fmt.Sprintf("%s[%d]", path, i)
		if problem != "" {
			d.add(item, sub, "%s", problem)
			continue
		}
		s, ok := stringOf(item)
		if !ok {
			d.add(item, sub, "want a string, got %s", describe(item))
			continue
		}
		if d.at != nil {
			line, col := position(item)
			d.at[sub] = Problem{File: d.file, Path: sub, Line: line, Column: col}
		}
		out = append(out, s)
	}
	v.Set(reflect.ValueOf(out))
}

func stringOf(n ast.Node) (string, bool) {
	switch t := n.(type) {
	case *ast.StringNode:
		return t.Value, true
	case *ast.LiteralNode:
		if t.Value == nil {
			return "", true
		}
		return t.Value.Value, true
	}
	return "", false
}

func int64Of(n *ast.IntegerNode) (int64, bool) {
	switch x := n.Value.(type) {
	case int64:
		return x, true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// describe names a node's kind for messages, with a short scalar's text.
func describe(n ast.Node) string {
	text := ""
	if tk := n.GetToken(); tk != nil && len(tk.Value) <= 40 {
		text = " (" + strconv.Quote(tk.Value) + ")"
	}
	switch n.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		return "a string" + text
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number" + text
	case *ast.BoolNode:
		return "a boolean" + text
	case *ast.NullNode:
		return "no value"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	}
	return "a " + strings.ToLower(n.Type().String()) + text
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// field is one settable struct field.
type field struct {
	index int
	unit  string
}

// fieldsOf maps a struct's yaml names to its fields; `yaml:"-"` fields are
// not settable from the file.
func fieldsOf(t reflect.Type) map[string]field {
	out := map[string]field{}
	for i := range t.NumField() {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = field{index: i, unit: f.Tag.Get("unit")}
	}
	return out
}

// parseDuration reads a Go duration; with unit "ms" a bare number is also
// accepted as milliseconds (the A2E spec's unit for its limits).
func parseDuration(s, unit string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if unit == "ms" {
		if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
			if ms < 0 || ms > math.MaxInt64/int64(time.Millisecond) {
				return 0, fmt.Errorf("%d ms is out of range", ms)
			}
			return time.Duration(ms) * time.Millisecond, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as \"30s\", \"5m\" or \"1h\", got %q", s)
	}
	return d, nil
}

// sizeUnits are the suffixes parseSize knows, longest first.
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"B", 1},
}

// parseSize reads a byte size: an integer, or an integer with a unit (KiB, MiB,
// GiB are powers of 1024; KB, MB, GB of 1000).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 1048576 or \"1MiB\", got %q", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q is out of range", s)
	}
	return n * mult, nil
}
