package e2a

import "maps"

// MergeParamsToACPPrompt returns the params an ACP peer needs for e (spec §7,
// RESOLUTIONS): a shallow copy of e.Params, and when e.Method is session/prompt:
//
//  1. if params already has a "prompt" key (whatever its value), it is kept and
//     no _meta is added;
//  2. else a non-empty params.content_blocks array becomes prompt, each block
//     with E2A's mime_type spelt as ACP's mimeType (in an embedded resource
//     too);
//  3. else the first of params.text, params.content, params.query that is a
//     non-empty string becomes prompt as one {"type":"text","text":...} block;
//     and e.ACPMeta is merged into params._meta (ACPMeta's keys win);
//  4. in every case the session goes in as ACP spells it, sessionId (ACP
//     requires it; its SDK answers a session/prompt without it with -32602):
//     params.sessionId when it is there, else a string params.session_id
//     (moved to sessionId), else e.SessionID when not empty. The reference
//     writes session_id, and none at all when prompt is present.
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
	if _, ok := p["prompt"]; !ok {
		if err := fillACPPrompt(p, e.ACPMeta); err != nil {
			return nil, err
		}
	}
	setACPSessionID(p, e.SessionID)
	return p, nil
}

// fillACPPrompt is steps 2 and 3 of MergeParamsToACPPrompt.
func fillACPPrompt(p, acpMeta map[string]any) error {
	if blocks, ok := p["content_blocks"].([]any); ok && len(blocks) > 0 {
		prompt := make([]any, len(blocks))
		for i, b := range blocks {
			prompt[i] = acpContentBlock(b)
		}
		p["prompt"] = prompt
	} else {
		for _, key := range []string{"text", "content", "query"} {
			if s, ok := p[key].(string); ok && s != "" {
				p["prompt"] = []any{map[string]any{"type": "text", "text": s}}
				break
			}
		}
	}
	if len(acpMeta) > 0 {
		meta := map[string]any{}
		switch old := p["_meta"].(type) {
		case nil:
		case map[string]any:
			maps.Copy(meta, old)
		default:
			return &Error{Path: "params._meta", Message: "must be an object to take acp_meta"}
		}
		maps.Copy(meta, acpMeta)
		p["_meta"] = meta
	}
	return nil
}

// setACPSessionID is step 4 of MergeParamsToACPPrompt.
func setACPSessionID(p map[string]any, session string) {
	if _, ok := p["sessionId"]; ok {
		return
	}
	if s, ok := p["session_id"].(string); ok {
		delete(p, "session_id")
		p["sessionId"] = s
	} else if session != "" {
		p["sessionId"] = session
	}
}

// acpContentBlock returns block with "mime_type" renamed "mimeType" (unless it
// has both), and the same inside an embedded resource; a block that is not an
// object is returned as it is.
func acpContentBlock(block any) any {
	b, ok := block.(map[string]any)
	if !ok {
		return block
	}
	out := maps.Clone(b)
	if v, ok := out["mime_type"]; ok {
		if _, has := out["mimeType"]; !has {
			delete(out, "mime_type")
			out["mimeType"] = v
		}
	}
	if res, ok := out["resource"].(map[string]any); ok {
		out["resource"] = acpContentBlock(res)
	}
	return out
}
