package e2a

import "maps"

// MergeParamsToACPPrompt returns the params an ACP peer needs for e (spec §7,
// RESOLUTIONS): a shallow copy of e.Params, and when e.Method is session/prompt:
//
//  1. if params already has a "prompt" key (whatever its value), the copy is
//     returned unchanged: no session_id and no _meta are added;
//  2. else a non-empty params.content_blocks array becomes prompt;
//  3. else the first of params.text, params.content, params.query that is a
//     non-empty string becomes prompt as one {"type":"text","text":...} block;
//  4. then e.SessionID is set as session_id when params has none, and e.ACPMeta
//     is merged into params._meta (ACPMeta's keys win).
//
// e.Params is never modified (the reference's setdefault("_meta").update would
// change the caller's _meta in place; we copy it first). A params._meta that is
// not an object cannot take ACPMeta and is an error naming it.
func MergeParamsToACPPrompt(e *Envelope) (map[string]any, error) {
	p := make(map[string]any, len(e.Params)+3)
	maps.Copy(p, e.Params)
	if e.Method != ACPSessionPrompt {
		return p, nil
	}
	if _, ok := p["prompt"]; ok {
		return p, nil
	}
	if blocks, ok := p["content_blocks"].([]any); ok && len(blocks) > 0 {
		p["prompt"] = append([]any(nil), blocks...)
	} else {
		for _, key := range []string{"text", "content", "query"} {
			if s, ok := p[key].(string); ok && s != "" {
				p["prompt"] = []any{map[string]any{"type": "text", "text": s}}
				break
			}
		}
	}
	if _, ok := p["session_id"]; e.SessionID != "" && !ok {
		p["session_id"] = e.SessionID
	}
	if len(e.ACPMeta) > 0 {
		meta := map[string]any{}
		switch old := p["_meta"].(type) {
		case nil:
		case map[string]any:
			maps.Copy(meta, old)
		default:
			return nil, &Error{Path: "params._meta", Message: "must be an object to take acp_meta"}
		}
		maps.Copy(meta, e.ACPMeta)
		p["_meta"] = meta
	}
	return p, nil
}
