package a2s

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// yamlReader turns goccy/go-yaml's AST into our tree. goccy keeps the line and
// column of every token, which the linter needs; the conversion is ours so
// that aliases are expanded under a budget, merge keys are applied, and every
// YAML-only value (.inf, .nan, complex keys) is refused with its position.
type yamlReader struct {
	lim     Limits
	anchors map[string]*Node
	sizes   map[*Node]int // expanded size of anchored subtrees
	nodes   int
}

func parseYAML(data []byte, lim Limits) (n *Node, err *Error) {
	f, perr := parseYAMLFile(data)
	if perr != nil {
		return nil, yamlSyntaxError(perr)
	}
	var body ast.Node
	var docs int
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		docs++
		if docs > 1 {
			return nil, &Error{Rule: RuleSyntax, Pos: nodePos(doc),
				Message: "YAML: a capability is one document; remove the second document (after `---`)"}
		}
		body = doc.Body
	}
	if body == nil {
		return nil, &Error{Rule: RuleSyntax, Pos: Pos{1, 1}, Message: "YAML: the document is empty; expected a mapping"}
	}
	r := &yamlReader{lim: lim, anchors: map[string]*Node{}, sizes: map[*Node]int{}}
	defer func() {
		// The conversion walks goccy's nodes, some of which have been seen
		// to hold nil parts on hostile input.
		if rec := recover(); rec != nil {
			n, err = nil, &Error{Rule: RuleSyntax, Pos: nodePos(body), Message: "YAML: the document cannot be read (malformed structure)"}
		}
	}()
	return r.node(body, 0)
}

// parseYAMLFile runs goccy's parser, turning a panic into an error: it has
// been seen to panic on inputs like "00\n---".
func parseYAMLFile(data []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, errYAMLPanic
		}
	}()
	return parser.ParseBytes(data, 0)
}

var errYAMLPanic = errors.New("the YAML parser failed on this input")

func yamlSyntaxError(err error) *Error {
	e := &Error{Rule: RuleSyntax, Pos: Pos{1, 1}, Message: "YAML: " + err.Error()}
	type tokened interface{ GetToken() *token.Token }
	type messaged interface{ GetMessage() string }
	if t, ok := err.(tokened); ok && t.GetToken() != nil {
		e.Pos = Pos{t.GetToken().Position.Line, t.GetToken().Position.Column}
	}
	if m, ok := err.(messaged); ok {
		e.Message = "YAML: " + m.GetMessage()
	}
	return e
}

// nodePos is where n starts; some goccy nodes dereference missing parts in
// GetToken, which must not take us down.
func nodePos(n ast.Node) (p Pos) {
	defer func() {
		if recover() != nil {
			p = Pos{}
		}
	}()
	if doc, ok := n.(*ast.DocumentNode); ok {
		if doc.Start != nil {
			return Pos{doc.Start.Position.Line, doc.Start.Position.Column}
		}
		n = doc.Body
	}
	if n == nil {
		return Pos{}
	}
	// A mapping's own token is its first ':'; its first key is where a
	// reader sees it start.
	if m, ok := n.(*ast.MappingNode); ok && len(m.Values) > 0 && !m.IsFlowStyle {
		return nodePos(m.Values[0].Key)
	}
	if m, ok := n.(*ast.MappingValueNode); ok {
		return nodePos(m.Key)
	}
	if s, ok := n.(*ast.SequenceNode); ok && s.Start != nil {
		return Pos{s.Start.Position.Line, s.Start.Position.Column}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return Pos{}
	}
	return Pos{tk.Position.Line, tk.Position.Column}
}

func (r *yamlReader) fail(n ast.Node, format string, args ...any) *Error {
	return &Error{Rule: RuleSyntax, Pos: nodePos(n), Message: "YAML: " + fmt.Sprintf(format, args...)}
}

func (r *yamlReader) count(n ast.Node, k int) *Error {
	r.nodes += k
	if r.nodes > r.lim.MaxNodes {
		return &Error{Rule: RuleLimit, Pos: nodePos(n),
			Message: fmt.Sprintf("YAML: more than %d values (counting every alias expansion)", r.lim.MaxNodes)}
	}
	return nil
}

func (r *yamlReader) node(n ast.Node, depth int) (*Node, *Error) {
	if depth > r.lim.MaxDepth {
		return nil, &Error{Rule: RuleLimit, Pos: nodePos(n), Message: fmt.Sprintf("YAML: nesting deeper than %d levels", r.lim.MaxDepth)}
	}
	if n == nil {
		return &Node{Kind: KindNull}, nil
	}
	pos := nodePos(n)
	switch v := n.(type) {
	case *ast.AnchorNode:
		start := r.nodes
		out, err := r.node(v.Value, depth)
		if err != nil {
			return nil, err
		}
		if v.Name != nil {
			name := v.Name.GetToken().Value
			r.anchors[name] = out
			r.sizes[out] = r.nodes - start
		}
		return out, nil
	case *ast.AliasNode:
		name := ""
		if v.Value != nil && v.Value.GetToken() != nil {
			name = v.Value.GetToken().Value
		}
		out, ok := r.anchors[name]
		if !ok {
			return nil, r.fail(n, "alias *%s refers to no anchor defined before it", name)
		}
		if err := r.count(n, r.sizes[out]); err != nil {
			return nil, err
		}
		return out, nil
	case *ast.TagNode:
		return r.tagged(v, depth)
	}
	if err := r.count(n, 1); err != nil {
		return nil, err
	}
	switch v := n.(type) {
	case *ast.NullNode:
		return &Node{Kind: KindNull, Pos: pos}, nil
	case *ast.BoolNode:
		return &Node{Kind: KindBool, Pos: pos, Bool: v.Value}, nil
	case *ast.IntegerNode:
		var f float64
		switch x := v.Value.(type) {
		case int64:
			f = float64(x)
		case uint64:
			f = float64(x)
		default:
			return nil, r.fail(n, "integer %s is out of range", v.Token.Value)
		}
		return &Node{Kind: KindNumber, Pos: pos, Num: f, Str: v.Token.Value}, nil
	case *ast.FloatNode:
		if math.IsInf(v.Value, 0) || math.IsNaN(v.Value) {
			return nil, r.fail(n, "number %s is out of the range of a double", v.Token.Value)
		}
		return &Node{Kind: KindNumber, Pos: pos, Num: v.Value, Str: v.Token.Value}, nil
	case *ast.InfinityNode, *ast.NanNode:
		return nil, r.fail(n, "%s has no JSON form; quote it if it is a string", n.GetToken().Value)
	case *ast.StringNode:
		return &Node{Kind: KindString, Pos: pos, Str: v.Value}, nil
	case *ast.LiteralNode:
		s := ""
		if v.Value != nil {
			s = v.Value.Value
		}
		return &Node{Kind: KindString, Pos: pos, Str: s}, nil
	case *ast.MappingNode:
		return r.mapping(v, pos, depth)
	case *ast.MappingValueNode:
		// A lone "key: value" parses as this node without a MappingNode.
		return r.mapping(&ast.MappingNode{BaseNode: v.BaseNode, Values: []*ast.MappingValueNode{v}}, pos, depth)
	case *ast.SequenceNode:
		out := &Node{Kind: KindArray, Pos: pos, Items: make([]*Node, 0, len(v.Values))}
		for _, it := range v.Values {
			c, err := r.node(it, depth+1)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, c)
		}
		return out, nil
	case *ast.MappingKeyNode:
		return r.node(v.Value, depth)
	case *ast.CommentGroupNode, *ast.CommentNode:
		return &Node{Kind: KindNull, Pos: pos}, nil
	}
	return nil, r.fail(n, "unsupported YAML construct %s", n.Type())
}

// tagged reads a value with an explicit tag. The core schema tags convert;
// any other tag is refused, as it would mean something to some reader.
func (r *yamlReader) tagged(v *ast.TagNode, depth int) (*Node, *Error) {
	tag := ""
	if v.Start != nil {
		tag = v.Start.Value
	}
	inner, err := r.node(v.Value, depth)
	if err != nil {
		return nil, err
	}
	switch tag {
	case "!!str", "!!string":
		if text, ok := inner.scalarText(); ok && inner.Kind != KindNull {
			raw := text
			if tk := v.Value.GetToken(); tk != nil && inner.Kind != KindString {
				raw = tk.Value
			}
			return &Node{Kind: KindString, Pos: inner.Pos, Str: raw}, nil
		}
		if inner.Kind == KindNull {
			return &Node{Kind: KindString, Pos: inner.Pos}, nil
		}
	case "!!int", "!!float":
		if inner.Kind == KindNumber {
			return inner, nil
		}
	case "!!bool":
		if inner.Kind == KindBool {
			return inner, nil
		}
	case "!!null":
		if inner.Kind == KindNull {
			return inner, nil
		}
	case "!!map", "!!omap":
		if inner.Kind == KindObject {
			return inner, nil
		}
	case "!!seq":
		if inner.Kind == KindArray {
			return inner, nil
		}
	default:
		return nil, r.fail(v, "tag %s is not supported in capability documents", tag)
	}
	return nil, r.fail(v, "tag %s does not fit a %s", tag, inner.Kind)
}

func (r *yamlReader) mapping(m *ast.MappingNode, pos Pos, depth int) (*Node, *Error) {
	out := &Node{Kind: KindObject, Pos: pos, Keys: make([]*Member, 0, len(m.Values))}
	seen := map[string]bool{}
	var merged []*Member
	for _, mv := range m.Values {
		if mv == nil {
			continue
		}
		if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
			src, err := r.node(mv.Value, depth+1)
			if err != nil {
				return nil, err
			}
			sources := []*Node{src}
			if src.Kind == KindArray {
				sources = src.Items
			}
			for _, s := range sources {
				if s.Kind != KindObject {
					return nil, r.fail(mv.Value, "the value of a merge key << must be a mapping or a list of mappings")
				}
				merged = append(merged, s.Keys...)
			}
			continue
		}
		key, err := r.key(mv.Key, depth)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, r.fail(mv.Key, "duplicate key %q in mapping", key)
		}
		seen[key] = true
		val, err := r.node(mv.Value, depth+1)
		if err != nil {
			return nil, err
		}
		out.Keys = append(out.Keys, &Member{Name: key, Pos: nodePos(mv.Key), Value: val})
	}
	// Keys written in the mapping win over merged ones (YAML merge key
	// semantics); the first source of a merge wins over later ones.
	for _, mm := range merged {
		if !seen[mm.Name] {
			seen[mm.Name] = true
			out.Keys = append(out.Keys, mm)
		}
	}
	return out, nil
}

// key reads a mapping key: scalars only, as their text (200: is "200").
func (r *yamlReader) key(k ast.Node, depth int) (string, *Error) {
	n, err := r.node(k, depth+1)
	if err != nil {
		return "", err
	}
	if n.Kind == KindString {
		return n.Str, nil
	}
	if text, ok := n.scalarText(); ok {
		if tk := k.GetToken(); tk != nil && n.Kind != KindNull {
			return strings.TrimSpace(tk.Value), nil
		}
		return text, nil
	}
	return "", r.fail(k, "a mapping key must be a scalar, not a %s", n.Kind)
}
