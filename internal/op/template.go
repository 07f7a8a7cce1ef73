package op

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/urlpath"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Templates: strings with {/workflow/...} or {/input...} references, parsed once
// when an operation is built and rendered against the data model at run time.
// Three shapes exist: text (header values, storage keys), URLs (values escaped by
// where they sit) and JSON bodies (a tree whose strings may be templates, whole
// references or credentialRefs).

// maxTemplateOutput bounds one rendered string (a URL, a header value, a key).
const maxTemplateOutput = 64 << 10

// tplText renders a data-model value as text: strings as they are, numbers and
// booleans in JSON form (1, 2.5, 1e+21), null as "null", objects and arrays as
// compact JSON.
func tplText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "null", nil
	case float64:
		// Integral values (ids, counts) are by far the most common in URLs; their
		// JSON form is the plain integer, so skip the encoder.
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10), nil
		}
	}
	var b bytes.Buffer
	if err := tplWriteJSON(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// tplWriteJSON writes v as compact JSON without HTML escaping (the text goes to
// an API, not into a web page).
func tplWriteJSON(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

// tplParse parses s, reporting a malformed reference as a ValidationError at jsonPath.
func tplParse(s, jsonPath string) (a2e.Template, error) {
	t, err := a2e.ParseTemplate(s)
	if err != nil {
		return a2e.Template{}, invalidConfig(jsonPath, "%s: %s", jsonPath, err.Error()).WithCause(err).
			WithSuggestions("References look like {/workflow/users[0].id} or {/input/name}")
	}
	return t, nil
}

// textTemplate renders to text with values placed as they are.
type textTemplate struct {
	tpl a2e.Template
}

func parseTextTemplate(s, jsonPath string) (textTemplate, error) {
	t, err := tplParse(s, jsonPath)
	return textTemplate{tpl: t}, err
}

func (t textTemplate) refs() []a2e.Path { return t.tpl.Refs() }

// literal returns the text when there is no reference to render.
func (t textTemplate) literal() (string, bool) {
	if t.tpl.HasRefs() {
		return "", false
	}
	var b strings.Builder
	for _, p := range t.tpl.Parts {
		b.WriteString(p.Text)
	}
	return b.String(), true
}

func (t textTemplate) render(data Data) (string, error) {
	if len(t.tpl.Parts) == 1 && t.tpl.Parts[0].Ref == nil {
		return t.tpl.Parts[0].Text, nil
	}
	var b strings.Builder
	for _, p := range t.tpl.Parts {
		if p.Ref == nil {
			b.WriteString(p.Text)
			continue
		}
		v, err := data.Get(*p.Ref)
		if err != nil {
			return "", err
		}
		s, err := tplText(v)
		if err != nil {
			return "", dataError(*p.Ref, "%s cannot be written as text", p.Ref)
		}
		b.WriteString(s)
		if b.Len() > maxTemplateOutput {
			return "", dataError(*p.Ref, "the text made from %s is over %d bytes", p.Ref, maxTemplateOutput)
		}
	}
	return b.String(), nil
}

// urlTemplate is a URL whose references sit in the path, query or fragment; the
// scheme and authority are literal, so the host known at build time is the host
// the request goes to.
type urlTemplate struct {
	parts  []urlPart
	fixed  *url.URL // the parsed URL when there is no reference to render
	scheme string   // "http" or "https"
	host   string   // hostname, lower case, no brackets
	port   string   // explicit or the scheme's default
}

type urlPart struct {
	text  string
	ref   *a2e.Path
	query bool // in the query or fragment: query-escaped; otherwise path-escaped
}

// parseURLTemplate checks everything that can be checked before run time: the
// references are well formed and not in the scheme or authority, and the URL
// with placeholders in their place is an absolute http(s) URL with a host and
// no user info.
func parseURLTemplate(s, jsonPath string) (*urlTemplate, error) {
	if s == "" {
		return nil, invalidConfig(jsonPath, "%s is required", jsonPath).
			WithSuggestions("Give an absolute URL such as https://api.example.com/users")
	}
	if len(s) > 8192 {
		return nil, invalidConfig(jsonPath, "%s is over 8192 characters", jsonPath)
	}
	tpl, err := tplParse(s, jsonPath)
	if err != nil {
		return nil, err
	}
	t := &urlTemplate{}
	var skeleton strings.Builder
	inQuery := false
	for _, p := range tpl.Parts {
		if p.Ref == nil {
			t.parts = append(t.parts, urlPart{text: p.Text})
			skeleton.WriteString(p.Text)
			if strings.ContainsAny(p.Text, "?#") {
				inQuery = true
			}
			continue
		}
		if !authorityEnded(skeleton.String()) {
			return nil, invalidConfig(jsonPath, "%s: a reference may not stand in the scheme or host of a URL (%s at offset %d)",
				jsonPath, p.Ref, p.Start).
				WithSuggestions("Write the scheme and host literally; references may fill the path and query, e.g. https://api.example.com/users/{/workflow/id}")
		}
		t.parts = append(t.parts, urlPart{ref: p.Ref, query: inQuery})
		skeleton.WriteString("x")
	}
	u, err := url.Parse(skeleton.String())
	if err != nil {
		return nil, invalidConfig(jsonPath, "%s is not a valid URL: %s", jsonPath, urlErrText(err)).WithCause(err)
	}
	if err := checkURLShape(u, jsonPath); err != nil {
		return nil, err
	}
	t.scheme, t.host, t.port = u.Scheme, strings.ToLower(u.Hostname()), portOf(u)
	if !tpl.HasRefs() {
		t.fixed = u
	}
	return t, nil
}

// authorityEnded reports whether the literal text so far has finished the
// scheme and authority ("https://host/", "http://h:1?"): only then may a
// reference follow.
func authorityEnded(prefix string) bool {
	i := strings.Index(prefix, "://")
	if i < 0 {
		return false
	}
	return strings.ContainsAny(prefix[i+3:], "/?#")
}

// checkURLShape requires an absolute http(s) URL with a host and no user info.
func checkURLShape(u *url.URL, jsonPath string) *fault.Error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return invalidConfig(jsonPath, "%s must be an absolute http or https URL", jsonPath).
			WithSuggestions("Start the URL with https:// or http://")
	case u.Hostname() == "":
		return invalidConfig(jsonPath, "%s has no host", jsonPath)
	case u.User != nil:
		return invalidConfig(jsonPath, "%s must not carry user info (user:password@)", jsonPath).
			WithSuggestions(`Send credentials in a header with {"credentialRef": {"id": "..."}}`)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return invalidConfig(jsonPath, "%s has an invalid port %q", jsonPath, p)
		}
	}
	return nil
}

// urlErrText is url.Parse's complaint without the URL it repeats.
func urlErrText(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return err.Error()
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func (t *urlTemplate) refs() []a2e.Path {
	var out []a2e.Path
	for _, p := range t.parts {
		if p.ref != nil {
			out = append(out, *p.ref)
		}
	}
	return out
}

// render interpolates and parses the URL. The result is checked again: it must
// still be absolute http(s) on the host seen at build time. A value in the
// path is escaped as a segment (a '/' cannot start a new one), and a segment
// a value helped make that is only dots ("..", or "." after a literal ".") is
// sent encoded: as a dot segment it would be removed with the segment before
// it, and the request would leave the declared path.
func (t *urlTemplate) render(data Data) (*url.URL, error) {
	if t.fixed != nil {
		u := *t.fixed // callers may not change it, but a copy costs nothing
		return &u, nil
	}
	b := make([]byte, 0, 128)
	inPath := true
	segStart, segHasRef := 0, false
	endSegment := func() {
		if segHasRef {
			b = append(b[:segStart], urlpath.GuardDots(string(b[segStart:]))...)
		}
	}
	for _, p := range t.parts {
		if p.ref == nil {
			text := p.text
			for inPath {
				i := strings.IndexAny(text, "/?#")
				if i < 0 {
					break
				}
				b = append(b, text[:i]...)
				endSegment()
				inPath = text[i] == '/'
				b = append(b, text[i])
				segStart, segHasRef = len(b), false
				text = text[i+1:]
			}
			b = append(b, text...)
			continue
		}
		v, err := data.Get(*p.ref)
		if err != nil {
			return nil, err
		}
		s, err := tplText(v)
		if err != nil {
			return nil, dataError(*p.ref, "%s cannot be written into a URL", p.ref)
		}
		if p.query {
			b = append(b, url.QueryEscape(s)...)
		} else {
			b = append(b, url.PathEscape(s)...)
			segHasRef = true
		}
		if len(b) > maxTemplateOutput {
			return nil, dataError(*p.ref, "the URL made with %s is over %d bytes", p.ref, maxTemplateOutput)
		}
	}
	if inPath {
		endSegment()
	}
	u, err := url.Parse(string(b))
	if err != nil {
		return nil, fault.Typed(fault.Invalid, fault.DataError, "the URL is not valid after interpolation: %s", urlErrText(err)).WithCause(err)
	}
	if u.Scheme != t.scheme || strings.ToLower(u.Hostname()) != t.host || portOf(u) != t.port {
		return nil, fault.Typed(fault.Invalid, fault.DataError, "the URL changed its scheme or host after interpolation")
	}
	return u, nil
}

// bodyNode is one node of an ApiCall body: a literal JSON value, a string
// template, a string that is exactly one reference (its raw value is placed), a
// credentialRef, or an object or array of nodes.
type bodyNode struct {
	kind     bodyKind
	raw      json.RawMessage // literal: compact JSON
	text     textTemplate    // text
	ref      a2e.Path        // whole
	credID   string          // cred
	keys     []string        // object, in document order
	children []*bodyNode     // object (parallel to keys) or array
}

type bodyKind uint8

const (
	bodyLiteral bodyKind = iota
	bodyText
	bodyWhole
	bodyCred
	bodyObject
	bodyArray
)

// maxBodyDepth bounds the nesting of a body given in a workflow.
const maxBodyDepth = 64

// parseBody builds the body tree from raw JSON. Strings are parsed as templates;
// an object that is {"credentialRef": ...} is a credential reference.
func parseBody(raw json.RawMessage, jsonPath string) (*bodyNode, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // literal numbers are sent exactly as written
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalidConfig(jsonPath, "%s is not valid JSON", jsonPath).WithCause(err)
	}
	return bodyFrom(v, jsonPath, 0)
}

func bodyFrom(v any, jsonPath string, depth int) (*bodyNode, error) {
	if depth > maxBodyDepth {
		return nil, invalidConfig(jsonPath, "%s is nested deeper than %d levels", jsonPath, maxBodyDepth)
	}
	switch x := v.(type) {
	case string:
		t, err := tplParse(x, jsonPath)
		if err != nil {
			return nil, err
		}
		if p, ok := t.Whole(); ok {
			return &bodyNode{kind: bodyWhole, ref: p}, nil
		}
		if t.HasRefs() {
			return &bodyNode{kind: bodyText, text: textTemplate{tpl: t}}, nil
		}
	case map[string]any:
		if _, ok := x["credentialRef"]; ok && len(x) == 1 {
			id, err := credentialID(x["credentialRef"], jsonPath)
			if err != nil {
				return nil, err
			}
			return &bodyNode{kind: bodyCred, credID: id}, nil
		}
		n := &bodyNode{kind: bodyObject}
		for k := range x {
			n.keys = append(n.keys, k)
		}
		slices.Sort(n.keys) // the decoded map lost the order; sorted is stable for cache keys
		for _, k := range n.keys {
			c, err := bodyFrom(x[k], jsonPath+"."+k, depth+1)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, c)
		}
		return n.collapse(), nil
	case []any:
		n := &bodyNode{kind: bodyArray}
		for i, e := range x {
			c, err := bodyFrom(e, fmt.Sprintf("%s[%d]", jsonPath, i), depth+1)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, c)
		}
		return n.collapse(), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, invalidConfig(jsonPath, "%s holds a value that is not JSON", jsonPath).WithCause(err)
	}
	return &bodyNode{kind: bodyLiteral, raw: raw}, nil
}

// collapse turns a container with nothing to render into one literal.
func (n *bodyNode) collapse() *bodyNode {
	for _, c := range n.children {
		if c.kind != bodyLiteral {
			return n
		}
	}
	var b bytes.Buffer
	n.write(&b, nil, nil, false) // literals only: cannot fail
	return &bodyNode{kind: bodyLiteral, raw: b.Bytes()}
}

// credentialID reads {"id": "X"} strictly.
func credentialID(v any, jsonPath string) (string, error) {
	obj, ok := v.(map[string]any)
	id, isString := obj["id"].(string)
	if !ok || len(obj) != 1 || !isString || id == "" {
		return "", invalidConfig(jsonPath+".credentialRef", `%s.credentialRef must be {"id": "<credential id>"}`, jsonPath).
			WithSuggestions(`Write {"credentialRef": {"id": "api-key-123"}}`)
	}
	if len(id) > 256 {
		return "", invalidConfig(jsonPath+".credentialRef.id", "%s.credentialRef.id is over 256 characters", jsonPath)
	}
	return id, nil
}

// visit calls f on every node of the tree.
func (n *bodyNode) visit(f func(*bodyNode)) {
	f(n)
	for _, c := range n.children {
		c.visit(f)
	}
}

// write renders the node as JSON into b. creds maps credential ids to the text to
// send; with keyForm set, credentials are written as their ids instead (for cache
// keys, which must never depend on a secret).
func (n *bodyNode) write(b *bytes.Buffer, data Data, creds map[string]string, keyForm bool) error {
	switch n.kind {
	case bodyLiteral:
		b.Write(n.raw)
	case bodyText:
		s, err := n.text.render(data)
		if err != nil {
			return err
		}
		return tplWriteJSON(b, s)
	case bodyWhole:
		v, err := data.Get(n.ref)
		if err != nil {
			return err
		}
		if err := tplWriteJSON(b, v); err != nil {
			return dataError(n.ref, "%s cannot be sent as JSON", n.ref)
		}
	case bodyCred:
		if keyForm {
			return tplWriteJSON(b, map[string]any{"credentialRef": n.credID})
		}
		return tplWriteJSON(b, creds[n.credID])
	case bodyObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			tplWriteJSON(b, k)
			b.WriteByte(':')
			if err := n.children[i].write(b, data, creds, keyForm); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case bodyArray:
		b.WriteByte('[')
		for i, c := range n.children {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := c.write(b, data, creds, keyForm); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	}
	return nil
}

// asString returns the body's value when it is a string (for a body sent as is
// under a non-JSON Content-Type), and whether it is one.
func (n *bodyNode) asString(data Data, creds map[string]string) (string, bool, error) {
	switch n.kind {
	case bodyText:
		s, err := n.text.render(data)
		return s, true, err
	case bodyCred:
		return creds[n.credID], true, nil
	case bodyWhole:
		v, err := data.Get(n.ref)
		if err != nil {
			return "", false, err
		}
		s, ok := v.(string)
		return s, ok, nil
	case bodyLiteral:
		var s string
		if json.Unmarshal(n.raw, &s) == nil {
			return s, true, nil
		}
	}
	return "", false, nil
}
