package store

import (
	"bytes"
	"strings"
)

// Kinds of execution record. Three kinds of run share the executions table;
// each record says which it is, so the runners, recovery and lists select
// their own in SQL instead of recognising documents.
const (
	// KindA2E is an A2E workflow execution (internal/execution).
	KindA2E = "a2e"
	// KindCapability is an A2S capability run (internal/caprun).
	KindCapability = "a2s"
	// KindAgentWorkflow is an agent workflow run (internal/agentflow).
	KindAgentWorkflow = "agent_workflow"
)

// Kinds lists every kind of execution record.
var Kinds = []string{KindA2E, KindCapability, KindAgentWorkflow}

// CapabilityRunPrefix starts the document of an execution that is an A2S
// capability run (internal/caprun): a JSON descriptor, never an A2E workflow
// (whose lines carry "type").
const CapabilityRunPrefix = `{"a2s_run":`

// AgentWorkflowPrefix starts the document of an execution that is an agent
// workflow run (internal/agentflow).
const AgentWorkflowPrefix = `{"agent_workflow":`

// IsCapabilityRun reports whether an execution's document is a capability
// run's descriptor. Code that selects records uses Execution.Kind; this is
// for code about to read the descriptor's content.
func IsCapabilityRun(doc []byte) bool { return bytes.HasPrefix(doc, []byte(CapabilityRunPrefix)) }

// KindOfDocument derives a record's kind from its document, as records
// written before Execution.Kind existed (and callers that leave Kind empty)
// are classified: the descriptor prefixes, else A2E. The schema migration
// that added the kind column backfills rows by the same rule.
func KindOfDocument(doc []byte) string {
	switch {
	case bytes.HasPrefix(doc, []byte(CapabilityRunPrefix)):
		return KindCapability
	case bytes.HasPrefix(doc, []byte(AgentWorkflowPrefix)):
		return KindAgentWorkflow
	}
	return KindA2E
}

// ValidKind reports whether k is one of Kinds.
func ValidKind(k string) bool {
	switch k {
	case KindA2E, KindCapability, KindAgentWorkflow:
		return true
	}
	return false
}

// checkKindOrEmpty refuses an unknown kind; "" (derive, or all) passes.
func checkKindOrEmpty(k string) error {
	if k != "" && !ValidKind(k) {
		return invalid("kind", "%q is not a kind of execution", truncate(k)).
			WithSuggestions("Use one of " + strings.Join(Kinds, ", "))
	}
	return nil
}
