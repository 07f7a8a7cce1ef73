// Package a2s is the codec of A2S capability documents (specs/a2s-capabilities.md
// with RESOLUTIONS "A2S capabilities"): it parses YAML and JSON into one tree
// that keeps the source position of every node, normalizes the tree into a
// Document (accepting the dialects RESOLUTIONS allows), lints documents with
// rules of stable IDs, computes and verifies the canonical checksum (RFC 8785),
// checks npm-style version constraints, and carries the JSON Schema of
// capability documents.
//
// The package is pure: it reads bytes and returns values. Running a capability
// (compiling it to a plan, calling services) belongs to internal/capability.
//
// The pipeline is
//
//	bytes --Parse--> *Node tree (positions, exactly as written)
//	      --Normalize--> *Document (dialects folded, typed, positioned)
//	      --Lint--> []Diagnostic (file:line:col, rule ID, severity)
//
// The checksum is computed over the tree, before normalization, so that two
// tools that accept different dialects still agree on it.
package a2s
