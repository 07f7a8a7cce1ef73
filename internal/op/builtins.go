package op

import (
	"encoding/json"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// Builtins returns the catalog of built-in operations in the spec's order, each
// Spec carrying its config's JSON Schema from protocol/a2e.
func Builtins() []Registration {
	regs := []Registration{
		ApiCallOp, FilterDataOp, TransformDataOp, ConditionalOp, LoopOp,
		StoreDataOp, WaitOp, MergeDataOp, LoadDataOp, InvokeAgentOp,
	}
	for i := range regs {
		if s, ok := a2e.Schema(regs[i].Spec.Name); ok {
			regs[i].Spec.Schema = json.RawMessage(s)
		}
	}
	return regs
}
