package a2s

import _ "embed"

//go:embed schema.json
var schemaJSON []byte

// JSONSchema returns the JSON Schema (2020-12) of capability documents. It checks
// structure only (types, required fields, enumerations, the dialects);
// references, flows and imports are the linter's. The bytes are a copy: the
// caller may keep or change them.
func JSONSchema() []byte {
	out := make([]byte, len(schemaJSON))
	copy(out, schemaJSON)
	return out
}
