package a2s

import (
	"fmt"
	"strconv"
	"strings"
)

// Resolve follows a local JSON pointer ("#/inputs/city", RFC 6901 with ~0 and
// ~1 escapes) in the document tree. Keys may hold dots
// ("#/inputs/services/api.weather.com/oauth2/client_id"): a pointer splits on
// "/" only. The error names the first segment that does not resolve.
func (d *Document) Resolve(ptr string) (*Node, error) {
	return resolvePointer(d.Tree, ptr)
}

func resolvePointer(root *Node, ptr string) (*Node, error) {
	frag, ok := strings.CutPrefix(ptr, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q is not a local pointer (#/...)", ptr)
	}
	if frag == "" {
		return root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("$ref %q: a pointer after # starts with /", ptr)
	}
	n := root
	at := "#"
	for _, raw := range strings.Split(frag[1:], "/") {
		seg := unescapePointer(raw)
		switch n.Kind {
		case KindObject:
			next := n.Get(seg)
			if next == nil {
				return nil, fmt.Errorf("$ref %q: %s has no key %q", ptr, at, seg)
			}
			n = next
		case KindArray:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(n.Items) || (len(seg) > 1 && seg[0] == '0') {
				return nil, fmt.Errorf("$ref %q: %s has no item %q", ptr, at, seg)
			}
			n = n.Items[i]
		default:
			return nil, fmt.Errorf("$ref %q: %s is %s, which has no %q", ptr, at, n.describe(), seg)
		}
		at += "/" + raw
	}
	return n, nil
}

func unescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}
