package op

import "github.com/sluicehq/sluice/internal/datamodel"

// chargeDecoded charges to the execution's data budget a value decoded from
// JSON, less the precharged bytes charged before decoding (the JSON's length,
// when it was known before it was read or decoded): the decoded value takes
// about six times its JSON (datamodel.Size). Decoded JSON shares nothing, so
// its whole walk is linear in the JSON, which the response limit bounds.
func chargeDecoded(rc *RunContext, v any, precharged int64) error {
	return rc.Budget.Charge(rc.OperationID, datamodel.Size(v)-precharged)
}
