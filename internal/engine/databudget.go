package engine

import (
	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
)

// The data budget of an execution (datamodel.Budget): the engine makes one per
// run, hands it to every operation (RunContext.Budget) and charges what
// operations do not charge themselves. Operations that know a size before they
// allocate (ApiCall, InvokeAgent, MergeData; Spec.MetersData) charge it then; for the others
// the engine charges the output they returned, before it is written to the data
// model or the results. Going over is fatal, whatever onError says, and the
// execution's data is dropped at once.

// newDataBudget is the budget of a run: limit, or the engine's when 0; -1
// counts without a limit.
func (e *Engine) newDataBudget(limit int64) *datamodel.Budget {
	if limit == 0 {
		limit = e.limits.MaxDataBytes
	}
	return datamodel.NewBudget(limit)
}

// chargeOutput charges a step's output unless the operation charged it
// itself. A cached output is charged whatever the operation: it comes from
// the cache, not from the operation's own accounting.
func (ex *execution) chargeOutput(st *Step, out any, cached bool) *fault.Error {
	if st.Output == nil || (st.Spec.MetersData && !cached) {
		return nil
	}
	return asFault(ex.data.ChargeValue(st.ID, out))
}

// chargeLoopOutput charges the array of a loop's n iteration results; the
// results themselves were charged by the steps that made them.
func (ex *execution) chargeLoopOutput(st *Step, n int) *fault.Error {
	if st.Output == nil {
		return nil
	}
	return asFault(ex.data.Charge(st.ID, datamodel.ArraySize(n)))
}

func asFault(err error) *fault.Error {
	if err == nil {
		return nil
	}
	return fault.From(err)
}

// chargeInput charges the caller's input; over the budget, the run is refused.
func (ex *execution) chargeInput(input any) *fault.Error {
	if ex.data.ChargeValue("input", input) == nil {
		return nil
	}
	return fault.Typed(fault.TooLarge, fault.DataError,
		"the input is %d bytes of data, over the execution's data budget of %d bytes", ex.data.Used(), ex.data.Limit()).
		WithDetail("dataBudgetBytes", ex.data.Limit()).WithDetail("reachedBytes", ex.data.Used())
}

// dropData forgets the data of an execution that went over its budget: the
// data model, the results and the outputs of nested steps, so that neither
// the final checkpoint nor the result carries them and the memory returns.
func (ex *execution) dropData() {
	ex.root.replace(datamodel.New(nil))
	ex.mu.Lock()
	defer ex.mu.Unlock()
	clear(ex.results)
	clear(ex.outputs)
	clear(ex.overlays)
	ex.input = nil
}
