package a2e

import (
	"embed"
	"slices"
)

// The JSON Schemas (draft 2020-12) of the messages and of every operation's
// config. They are the published contract and the source of the generated docs,
// so every property carries a description. Each has the $id
// https://sluicehq.github.io/schemas/a2e/<name>.json; operationUpdate refers to
// the operation schemas by relative $ref, so a validator must be given them all.
//
//go:embed schemas/*.json
var schemaFS embed.FS

// SchemaBaseURI is the base of every schema's $id.
const SchemaBaseURI = "https://sluicehq.github.io/schemas/a2e/"

// Schema returns the JSON Schema of a message type (operationUpdate,
// beginExecution) or of an operation's config (ApiCall, ..., InvokeAgent). The bytes
// are a fresh copy.
func Schema(name string) ([]byte, bool) {
	if !slices.Contains(SchemaNames(), name) {
		return nil, false
	}
	b, err := schemaFS.ReadFile("schemas/" + name + ".json")
	return b, err == nil
}

// SchemaNames lists the schemas: the message types, then the operations in
// catalog order.
func SchemaNames() []string {
	return append(slices.Clone(MessageTypes), OperationNames...)
}
