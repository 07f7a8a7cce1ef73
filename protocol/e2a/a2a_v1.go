package e2a

import (
	"encoding/base64"
	"fmt"
	"maps"
	"strings"
)

// a2aV1 rewrites A2A JSON written to A2A 0.3 or 1.0 as A2A 1.0, the JSON that
// github.com/a2aproject/a2a-go/v2 reads with strict protojson (unknown fields
// refused, enums by name). It is how sluice writes whatever an agent sent, so an
// agent still on 0.3 reaches a 1.0 caller intact. The mapping is a2a-go's own
// (a2acompat/a2av0):
//
//   - the "kind" discriminators go (the key under which an object sits says
//     what it is); a status update's "final" goes (1.0 ends a stream on a
//     terminal or interrupted state instead);
//   - states: "completed" -> TASK_STATE_COMPLETED, "input-required" ->
//     TASK_STATE_INPUT_REQUIRED, ... ("unknown" and anything unrecognised ->
//     TASK_STATE_UNSPECIFIED); roles: "agent" -> ROLE_AGENT, "user" ->
//     ROLE_USER;
//   - parts: {kind:"text",text} -> {text}; {kind:"data",data} -> {data} (a
//     value a2a-go 0.3 wrapped as {"value": v} with metadata data_part_compat
//     is unwrapped); {kind:"file",file:{bytes|uri,mimeType,name}} -> {raw|url,
//     mediaType, filename}; a part with no content it can read becomes a data
//     part holding the part, as a2a-go does;
//   - timestamps are rewritten in RFC 3339 (an unreadable one is left out: the
//     field is optional);
//   - fields neither version defines, and values of the wrong JSON type, are
//     left out, as a2a-go's own JSON reader ignores them.
//
// With fill set, empty ids are minted (see a2aIDs); without it (an A2A request
// coming in) missing ids stay missing.
type a2aV1 struct {
	fill bool
	ids  a2aIDs
}

// a2aStates maps the A2A 0.3 state names (and their underscore spellings) to
// A2A 1.0's enum names.
var a2aStates = map[string]string{
	"submitted": "TASK_STATE_SUBMITTED", "working": "TASK_STATE_WORKING",
	"completed": "TASK_STATE_COMPLETED", "failed": "TASK_STATE_FAILED",
	"canceled": "TASK_STATE_CANCELED", "rejected": "TASK_STATE_REJECTED",
	"input-required": "TASK_STATE_INPUT_REQUIRED", "auth-required": "TASK_STATE_AUTH_REQUIRED",
}

func a2aV1State(s string) string {
	if strings.HasPrefix(s, "TASK_STATE_") {
		for _, v := range a2aStates {
			if v == s {
				return s
			}
		}
		return "TASK_STATE_UNSPECIFIED"
	}
	if v, ok := a2aStates[strings.ReplaceAll(strings.ToLower(s), "_", "-")]; ok {
		return v
	}
	return "TASK_STATE_UNSPECIFIED"
}

func a2aV1Role(s string) string {
	switch strings.ToLower(strings.TrimPrefix(s, "ROLE_")) {
	case "agent":
		return "ROLE_AGENT"
	case "user":
		return "ROLE_USER"
	}
	return "ROLE_UNSPECIFIED"
}

// event rewrites the payload under one StreamResponse key.
func (w a2aV1) event(key string, m map[string]any) map[string]any {
	switch key {
	case "task":
		return w.task(m)
	case "message":
		return w.message(m, w.ids.knownTask, "")
	case "statusUpdate":
		return w.statusUpdate(m)
	}
	return w.artifactUpdate(m)
}

func (w a2aV1) task(m map[string]any) map[string]any {
	id := w.id(str(m, "id"), w.ids.task)
	out := map[string]any{}
	setStr(out, "id", id)
	setStr(out, "contextId", w.id(str(m, "contextId", "context_id"), w.ids.context))
	st, _ := m["status"].(map[string]any)
	out["status"] = w.status(st, id, "status")
	if list, ok := m["artifacts"].([]any); ok {
		arts := make([]any, 0, len(list))
		for i, a := range list {
			if am, ok := a.(map[string]any); ok {
				arts = append(arts, w.artifact(am, i))
			}
		}
		out["artifacts"] = arts
	}
	if list, ok := m["history"].([]any); ok {
		hist := make([]any, 0, len(list))
		for i, h := range list {
			if hm, ok := h.(map[string]any); ok {
				hist = append(hist, w.message(hm, id, fmt.Sprintf("history[%d]", i)))
			}
		}
		out["history"] = hist
	}
	setObj(out, "metadata", m["metadata"])
	return out
}

// status rewrites a TaskStatus; taskID is the id of the task it belongs to.
func (w a2aV1) status(m map[string]any, taskID, path string) map[string]any {
	state, _ := m["state"].(string)
	out := map[string]any{"state": a2aV1State(state)}
	if msg, ok := m["message"].(map[string]any); ok {
		out["message"] = w.message(msg, taskID, path+".message")
	}
	if ts, ok := m["timestamp"].(string); ok {
		if t, err := ParseTimestamp(ts); err == nil && !t.Before(minTime) && !t.After(maxTime) {
			out["timestamp"] = FormatTimestamp(t)
		}
	}
	return out
}

// message rewrites a Message. taskID is the task it belongs to ("" for none);
// path says where it sits in the payload ("" for the payload itself), which
// keeps minted message ids apart.
func (w a2aV1) message(m map[string]any, taskID, path string) map[string]any {
	out := map[string]any{}
	msgID := w.ids.message
	if path != "" {
		msgID += "/" + path
	}
	setStr(out, "messageId", w.id(str(m, "messageId", "message_id"), msgID))
	setStr(out, "contextId", w.id(str(m, "contextId", "context_id"), w.ids.context))
	setStr(out, "taskId", orDefault(str(m, "taskId", "task_id"), taskID))
	role, _ := m["role"].(string)
	out["role"] = a2aV1Role(role)
	out["parts"] = w.parts(m["parts"])
	setObj(out, "metadata", m["metadata"])
	setStrings(out, "extensions", m["extensions"])
	if refs, ok := m["referenceTaskIds"]; ok {
		setStrings(out, "referenceTaskIds", refs)
	} else {
		setStrings(out, "referenceTaskIds", m["reference_task_ids"])
	}
	return out
}

func (w a2aV1) statusUpdate(m map[string]any) map[string]any {
	id := w.id(str(m, "taskId", "task_id"), w.ids.task)
	out := map[string]any{}
	setStr(out, "taskId", id)
	setStr(out, "contextId", w.id(str(m, "contextId", "context_id"), w.ids.context))
	st, _ := m["status"].(map[string]any)
	out["status"] = w.status(st, id, "status")
	setObj(out, "metadata", m["metadata"])
	return out
}

func (w a2aV1) artifactUpdate(m map[string]any) map[string]any {
	out := map[string]any{}
	setStr(out, "taskId", w.id(str(m, "taskId", "task_id"), w.ids.task))
	setStr(out, "contextId", w.id(str(m, "contextId", "context_id"), w.ids.context))
	art, _ := m["artifact"].(map[string]any)
	out["artifact"] = w.artifact(art, 0)
	for _, k := range [][2]string{{"append", "append"}, {"lastChunk", "last_chunk"}} {
		if b, ok := m[k[0]].(bool); ok {
			out[k[0]] = b
		} else if b, ok := m[k[1]].(bool); ok {
			out[k[0]] = b
		}
	}
	setObj(out, "metadata", m["metadata"])
	return out
}

// artifact rewrites an Artifact; i is its index in a task's artifacts (0 for
// the artifact of an update), which names a minted id: "output", "output-1", ...
func (w a2aV1) artifact(m map[string]any, i int) map[string]any {
	out := map[string]any{}
	minted := "output"
	if i > 0 {
		minted = fmt.Sprintf("output-%d", i)
	}
	setStr(out, "artifactId", w.id(str(m, "artifactId", "artifact_id"), minted))
	setStr(out, "name", str(m, "name"))
	setStr(out, "description", str(m, "description"))
	out["parts"] = w.parts(m["parts"])
	setObj(out, "metadata", m["metadata"])
	setStrings(out, "extensions", m["extensions"])
	return out
}

func (w a2aV1) parts(v any) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, p := range list {
		if pm, ok := p.(map[string]any); ok {
			out = append(out, a2aV1Part(pm))
		} else if p != nil { // a null part carries nothing
			out = append(out, map[string]any{"data": p})
		}
	}
	return out
}

// a2aV1Part rewrites one Part (see a2aV1 for the 0.3 mapping). A 1.0 part
// with more than one content field keeps the first of text, raw, url, data.
func a2aV1Part(m map[string]any) map[string]any {
	out := map[string]any{}
	meta, _ := m["metadata"].(map[string]any)
	kind, _ := m["kind"].(string)
	file, _ := m["file"].(map[string]any)
	switch {
	case kind == "text" || (kind == "" && isString(m["text"])):
		s, ok := m["text"].(string)
		if !ok {
			return a2aDataPart(m, meta)
		}
		out["text"] = s
	case kind == "file" || (kind == "" && file != nil):
		if s, ok := file["bytes"].(string); ok {
			out["raw"] = a2aBase64(s)
		} else if s, ok := file["uri"].(string); ok && s != "" {
			out["url"] = s
		} else {
			return a2aDataPart(m, meta)
		}
		setStr(out, "mediaType", str(file, "mimeType", "mime_type"))
		setStr(out, "filename", str(file, "name"))
	case kind == "data":
		data := m["data"]
		if compat, _ := meta["data_part_compat"].(bool); compat {
			if dm, ok := data.(map[string]any); ok {
				data = dm["value"]
			}
			meta = maps.Clone(meta)
			delete(meta, "data_part_compat")
		}
		out["data"] = data
	case kind == "" && isString(m["raw"]):
		out["raw"] = a2aBase64(m["raw"].(string))
	case kind == "" && isString(m["url"]) && m["url"] != "":
		out["url"] = m["url"]
	case kind == "":
		data, ok := m["data"]
		if !ok {
			return a2aDataPart(m, meta)
		}
		out["data"] = data
	default:
		return a2aDataPart(m, meta)
	}
	if kind == "" {
		setStr(out, "mediaType", str(m, "mediaType", "media_type"))
		setStr(out, "filename", str(m, "filename"))
	}
	if len(meta) > 0 {
		out["metadata"] = meta
	}
	return out
}

// a2aDataPart keeps a part sluice cannot read as a data part holding it.
func a2aDataPart(m, meta map[string]any) map[string]any {
	data := maps.Clone(m)
	delete(data, "metadata")
	out := map[string]any{"data": data}
	if len(meta) > 0 {
		out["metadata"] = meta
	}
	return out
}

// a2aBase64 returns s when it is base64 protojson reads (standard or URL
// alphabet, padded or not), else the base64 of its bytes (what a2a-go does
// with 0.3 file bytes that do not decode).
func a2aBase64(s string) string {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if _, err := enc.DecodeString(s); err == nil {
			return s
		}
	}
	return base64.StdEncoding.EncodeToString([]byte(s))
}

// id returns have, else (when minting) minted.
func (w a2aV1) id(have, minted string) string {
	if have != "" || !w.fill {
		return have
	}
	return minted
}

func isString(v any) bool { _, ok := v.(string); return ok }

func setStr(out map[string]any, key, s string) {
	if s != "" {
		out[key] = s
	}
}

func setObj(out map[string]any, key string, v any) {
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		out[key] = m
	}
}

func setStrings(out map[string]any, key string, v any) {
	list, _ := v.([]any)
	var ss []any
	for _, x := range list {
		if s, ok := x.(string); ok {
			ss = append(ss, s)
		}
	}
	if len(ss) > 0 {
		out[key] = ss
	}
}
