package store

import (
	"github.com/sluicehq/sluice/internal/fault"
)

// MaxExecutionBytes is the ceiling of an execution's stored result and of
// its checkpoint, and the default of the server's store.max_execution_bytes.
const MaxExecutionBytes = min(MaxResultBytes, MaxCheckpointBytes)

// ExecutionLimit is the stored limit in effect for a configured value:
// limit itself when it is within (0, MaxExecutionBytes], else the ceiling.
func ExecutionLimit(limit int) int {
	if limit <= 0 || limit > MaxExecutionBytes {
		return MaxExecutionBytes
	}
	return limit
}

// OverStoredLimit is the error of an execution whose result or checkpoint
// (what) is size bytes, over the stored limit. It is a DataError of kind
// TooLarge: permanent, so the engine and the execution manager fail the
// execution with it at once instead of trying to store it again.
func OverStoredLimit(what, executionID string, size, limit int) *fault.Error {
	return fault.Typed(fault.TooLarge, fault.DataError,
		"the %s of execution %s is %d bytes, over the stored limit of %d bytes", what, executionID, size, limit).
		WithDetail("limitBytes", limit).WithDetail("sizeBytes", size).
		WithSuggestions("Keep less data in the workflow: write to outputPath only what later operations or the caller need",
			"An operator may raise store.max_execution_bytes, up to 64 MiB")
}
