package store

import "bytes"

// CapabilityRunPrefix starts the document of an execution that is an A2S
// capability run (internal/caprun): a JSON descriptor, never an A2E workflow
// (whose lines carry "type"). The A2E execution manager leaves such records
// to the capability runs.
const CapabilityRunPrefix = `{"a2s_run":`

// IsCapabilityRun reports whether an execution's document is a capability
// run's descriptor.
func IsCapabilityRun(doc []byte) bool { return bytes.HasPrefix(doc, []byte(CapabilityRunPrefix)) }
