package a2e

import "strings"

// Template is a string with {/workflow/...} or {/input...} references in it.
type Template struct {
	Parts []TemplatePart
}

// TemplatePart is literal text or a reference.
type TemplatePart struct {
	Text  string
	Ref   *Path
	Start int // byte offset of the part in the source string
}

// ParseTemplate splits s into literal text and references. Only "{/workflow/" and
// "{/input" open a reference; any other brace is literal text, so JSON inside
// strings passes untouched.
func ParseTemplate(s string) (Template, error) {
	var t Template
	i, lit := 0, 0
	for i < len(s) {
		j := strings.Index(s[i:], "{/")
		if j < 0 {
			break
		}
		j += i
		if !strings.HasPrefix(s[j+1:], "/workflow") && !strings.HasPrefix(s[j+1:], "/input") {
			i = j + 1
			continue
		}
		end := strings.IndexByte(s[j:], '}')
		if end < 0 {
			return Template{}, &PathError{s, j, "unclosed '{' of a path reference"}
		}
		end += j
		p, err := ParsePath(s[j+1 : end])
		if err != nil {
			pe := err.(*PathError)
			pe.Offset += j + 1
			pe.Path = s
			return Template{}, pe
		}
		if j > lit {
			t.Parts = append(t.Parts, TemplatePart{Text: s[lit:j], Start: lit})
		}
		t.Parts = append(t.Parts, TemplatePart{Ref: &p, Start: j})
		i, lit = end+1, end+1
	}
	if lit < len(s) || len(t.Parts) == 0 {
		t.Parts = append(t.Parts, TemplatePart{Text: s[lit:], Start: lit})
	}
	return t, nil
}

// Whole returns the reference when the string is exactly one reference.
func (t Template) Whole() (Path, bool) {
	if len(t.Parts) == 1 && t.Parts[0].Ref != nil {
		return *t.Parts[0].Ref, true
	}
	return Path{}, false
}

// Refs lists the references in order.
func (t Template) Refs() []Path {
	var out []Path
	for _, p := range t.Parts {
		if p.Ref != nil {
			out = append(out, *p.Ref)
		}
	}
	return out
}

// HasRefs reports whether any part is a reference.
func (t Template) HasRefs() bool {
	for _, p := range t.Parts {
		if p.Ref != nil {
			return true
		}
	}
	return false
}
