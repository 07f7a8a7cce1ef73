package gateway_test

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// The SDK's pydantic v2 models of the messages sluice sends, transcribed
// field by field from github.com/a2eprotocol/python-sdk (commit c8fc1f8):
// a2e/caps/base/protocol.py (A2EMessage, Capability, HandshakeResponse,
// A2EError, Pong, Shutdown, A2EEvent) and a2e/caps/tools/protocol.py
// (ToolDefinition, ToolParameter, ToolListResponse, ToolResult,
// ToolCallResponse, ToolEvent). Every model keeps pydantic's default extra
// handling (an undefined field is ignored), so only defined fields are
// checked: a required one must be there, none may be null unless Optional,
// and each holds its type as pydantic's lax mode reads it (str takes only a
// string, int an integral number, float any number, dict an object).
// CI has no SDK; these rules keep the golden transcripts in step with it,
// and TestSessionWithTheSDKClient checks them against the SDK itself.

// sdkType is one field's type: a scalar ("str", "int", "float", "bool",
// "dict", "any"), "list" of Elem, "map" of Elem (dict[str, Model]), or a model.
type sdkType struct {
	kind     string
	elem     *sdkType
	model    string
	optional bool     // Optional[...]: null is accepted
	enum     []string // a str Enum
}

type sdkField struct {
	name     string
	typ      sdkType
	required bool // no default in the model
}

var (
	tStr      = sdkType{kind: "str"}
	tInt      = sdkType{kind: "int"}
	tFloat    = sdkType{kind: "float"}
	tBool     = sdkType{kind: "bool"}
	tDict     = sdkType{kind: "dict"}
	tAny      = sdkType{kind: "any", optional: true}
	tStrs     = sdkType{kind: "list", elem: &tStr}
	baseTypes = []string{"handshake/req", "handshake/resp", "invoke/event", "ping", "pong", "shutdown", "error"}
	toolTypes = []string{"tool/list/req", "tool/list/resp", "tool/event", "tool/call/req", "tool/call/resp"}
	sdkCaps   = []string{"skill", "tools", "toolkits", "env", "proc", "memory", "learning", "chains", "multi_agent", "planning", "mcp", "test"}
)

func opt(t sdkType) sdkType     { t.optional = true; return t }
func listOf(t sdkType) sdkType  { return sdkType{kind: "list", elem: &t} }
func model(name string) sdkType { return sdkType{kind: "model", model: name} }
func enumOf(v []string) sdkType { return sdkType{kind: "str", enum: v} }
func mapOf(name string) sdkType { m := model(name); return sdkType{kind: "map", elem: &m} }
func header(types []string) []sdkField {
	return []sdkField{{"type", enumOf(types), false}, {"id", tStr, false}, {"version", tStr, false}, {"ts", tFloat, false}}
}

// sdkModels holds each model's fields; A2EMessage's are every message's.
var sdkModels = map[string][]sdkField{
	"Capability": {{"capability", enumOf(sdkCaps), true}, {"enabled", tBool, false}, {"metadata", tDict, false}},
	"HandshakeResponse": append(header(baseTypes), sdkField{"req_id", tStr, false}, sdkField{"session_id", tStr, false},
		sdkField{"accepted_caps", listOf(model("Capability")), false}, sdkField{"max_parallel", tInt, false},
		sdkField{"ok", tBool, false}, sdkField{"reason", tStr, false}),
	"A2EError": append(header(baseTypes), sdkField{"req_id", tStr, false}, sdkField{"code", tStr, true},
		sdkField{"message", tStr, false}, sdkField{"detail", tDict, false}, sdkField{"retryable", tBool, false},
		sdkField{"capability_name", tStr, false}),
	"Pong":     append(header(baseTypes), sdkField{"req_id", tStr, false}, sdkField{"uptime_seconds", tFloat, false}),
	"Shutdown": append(header(baseTypes), sdkField{"timeout", tInt, false}),
	// ToolEvent(A2EEvent): type is the tool namespace's enum.
	"ToolEvent": append(header(toolTypes), sdkField{"kind", tStr, false}, sdkField{"req_id", tStr, false},
		sdkField{"data", tDict, false}, sdkField{"seq", tInt, false}),
	"ToolParameter": {{"name", tStr, true}, {"type", tStr, true}, {"description", tStr, true}, {"required", tBool, false},
		{"enum", opt(tStrs), false}, {"properties", opt(mapOf("ToolParameter")), false}},
	"ToolDefinition": {{"name", tStr, true}, {"description", tStr, true},
		{"input_parameters", listOf(model("ToolParameter")), false}, {"output_parameters", listOf(model("ToolParameter")), false},
		{"streaming", tBool, false}, {"idempotent", tBool, false}, {"tags", tStrs, false}, {"version", tStr, false},
		{"toolkit", opt(tStr), false}, {"defer_loading", tBool, false}},
	"ToolListResponse": append(header(toolTypes), sdkField{"req_id", tStr, false}, sdkField{"tools", listOf(model("ToolDefinition")), false}),
	"ToolResult": {{"success", tBool, true}, {"tool_name", tStr, true}, {"data", tAny, false}, {"summary", tAny, false},
		{"truncated", opt(tBool), false}, {"exit_code", opt(tInt), false}, {"error", opt(tStr), false},
		{"error_code", opt(tStr), false}, {"duration_ms", tInt, true}, {"events", listOf(model("ToolEvent")), false}},
	"ToolCallResponse": append(header(toolTypes), sdkField{"req_id", tStr, false}, sdkField{"data", model("ToolResult"), true},
		sdkField{"created_at", tFloat, false}),
}

// sdkModelOf is the model the SDK client decodes a type with
// (A2E_BASE_TYPE_MAP and TOOL_TYPE_MAP).
var sdkModelOf = map[string]string{
	"handshake/resp": "HandshakeResponse", "error": "A2EError", "pong": "Pong", "shutdown": "Shutdown",
	"tool/list/resp": "ToolListResponse", "tool/call/resp": "ToolCallResponse", "tool/event": "ToolEvent",
}

// sdkValidate checks a message (decoded with encoding/json) as the SDK's
// client would: nil when its model takes it.
func sdkValidate(msg map[string]any) error {
	typ, _ := msg["type"].(string)
	name, ok := sdkModelOf[typ]
	if !ok {
		return fmt.Errorf("type %q: the SDK has no model sluice may send it as", typ)
	}
	return checkModel(name, msg, typ)
}

func checkModel(name string, obj map[string]any, path string) error {
	fields, ok := sdkModels[name]
	if !ok {
		panic("no SDK model " + name)
	}
	for _, f := range fields {
		v, present := obj[f.name]
		if !present {
			if f.required {
				return fmt.Errorf("%s.%s: required by %s, missing", path, f.name, name)
			}
			continue
		}
		if err := checkValue(f.typ, v, path+"."+f.name); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(t sdkType, v any, path string) error {
	if v == nil {
		if t.optional {
			return nil
		}
		return fmt.Errorf("%s: null, not a %s", path, t.kind)
	}
	bad := func() error { return fmt.Errorf("%s: %T is not a %s", path, v, t.kind) }
	switch t.kind {
	case "any":
	case "str":
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		if t.enum != nil && !slices.Contains(t.enum, s) {
			return fmt.Errorf("%s: %q is not one of %q", path, s, t.enum)
		}
	case "int":
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			return bad()
		}
	case "float":
		if _, ok := v.(float64); !ok {
			return bad()
		}
	case "bool":
		if _, ok := v.(bool); !ok {
			return bad()
		}
	case "dict":
		if _, ok := v.(map[string]any); !ok {
			return bad()
		}
	case "list":
		xs, ok := v.([]any)
		if !ok {
			return bad()
		}
		for i, x := range xs {
			if err := checkValue(*t.elem, x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "map":
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := checkValue(*t.elem, m[k], path+"."+k); err != nil {
				return err
			}
		}
	case "model":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: %T is not a %s object", path, v, t.model)
		}
		return checkModel(t.model, m, path)
	}
	return nil
}
