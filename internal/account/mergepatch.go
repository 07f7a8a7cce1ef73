package account

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// A PATCH of an account changes its permissions and limits by JSON merge
// patch (RFC 7396): a member given replaces that member (a list as a
// whole), a member given as null removes it (no grant; the server's default
// limit), and members not named stay as they are. So a caller changing one
// grant cannot drop the others by omission.

// mergePatch applies patch to target as RFC 7396 section 2 says.
func mergePatch(target, patch any) any {
	p, isObject := patch.(map[string]any)
	if !isObject {
		return patch
	}
	t, _ := target.(map[string]any)
	out := make(map[string]any, len(t)+len(p))
	maps.Copy(out, t)
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}

// applyMergePatch merges patch (a JSON object or null) into current (JSON;
// empty means null) and decodes the result into dst (a pointer to a flat
// struct of zero value). The patch's members are decoded strictly first, so
// a misspelt one is refused rather than dropped; what was stored before is
// read as leniently as the rest of sluice reads it. field names the member
// in errors ("permissions", "limits").
func applyMergePatch(field string, current, patch json.RawMessage, dst any) error {
	var cur, p any
	if len(bytes.TrimSpace(current)) > 0 {
		if err := json.Unmarshal(current, &cur); err != nil {
			return fmt.Errorf("the stored %s do not decode: %w", field, err)
		}
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return fault.New(fault.Invalid, "%s must be a JSON object or null", field).WithDetail("path", field)
	}
	if _, isObject := p.(map[string]any); !isObject && p != nil {
		return fault.New(fault.Invalid, "%s must be a JSON object (a merge patch, RFC 7396) or null", field).WithDetail("path", field)
	}
	strict := json.NewDecoder(bytes.NewReader(patch))
	strict.DisallowUnknownFields()
	if err := strict.Decode(dst); err != nil {
		return fault.New(fault.Invalid, "%s: %s", field, strings.TrimPrefix(err.Error(), "json: ")).WithDetail("path", field)
	}
	merged, err := json.Marshal(mergePatch(cur, p))
	if err != nil {
		return err
	}
	// dst now holds the patch's values, which the merge holds too; decoding
	// the merge over it adds what the patch left as it was.
	return json.Unmarshal(merged, dst)
}
