package execution

import (
	"encoding/json"
	"slices"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// An execution that ran is always stored, whatever its result: one over the
// stored limit (Config.MaxStoredBytes) ends failed with an error naming the
// limit, its results left out. Refusing the write instead left a synchronous
// execution unstored, so its executionId ran again, and an asynchronous one
// running for ever, its final write failing and its queue item coming back.

// settled is an execution's final state as it is stored: the engine's result
// (or the failure it became) and its JSON, for the record, the final frame
// and the answer, with the errors column.
type settled struct {
	res    *engine.Result
	result json.RawMessage
	errs   json.RawMessage
}

// settle encodes prog's result of res within the stored limits.
func (m *Manager) settle(prog Program, res *engine.Result) (settled, error) {
	errs := boundErrors(res.ExecutionID, res.Errors)
	if len(errs) != len(res.Errors) {
		cut := *res
		cut.Errors = errs
		res = &cut
	}
	result, err := encodeResult(prog.Result(res))
	if err != nil {
		return settled{}, fault.New(fault.Internal, "the result of execution %s could not be encoded", res.ExecutionID).WithCause(err)
	}
	if len(result) > m.limit {
		over := store.OverStoredLimit("result", res.ExecutionID, len(result), m.limit)
		m.log.Warn("execution result over the stored limit: the execution fails", "executionId", res.ExecutionID, "error", over)
		failed := *res
		failed.Status, failed.Results, failed.Waiting = engine.StatusFailed, map[string]any{}, nil
		failed.Errors = append(slices.Clone(res.Errors), over.Object())
		if result, err = encodeResult(prog.Result(&failed)); err == nil && len(result) > m.limit {
			failed.Errors = []fault.Object{over.Object()} // the errors alone were too many
			result, err = encodeResult(prog.Result(&failed))
		}
		if err != nil {
			return settled{}, fault.New(fault.Internal, "the result of execution %s could not be encoded", res.ExecutionID).WithCause(err)
		}
		res = &failed
	}
	errsJSON, _ := json.Marshal(res.Errors) // encoded above, within the result
	return settled{res: res, result: result, errs: errsJSON}, nil
}

// encodeResult encodes a program's result. The engine's own result is
// encoded by its MarshalJSON, which is json.Marshal's output already
// (compact, HTML-escaped); json.Marshal would scan and copy those bytes once
// more to check and compact them, 24 % of encoding a data workflow's result.
func encodeResult(v any) ([]byte, error) {
	if r, ok := v.(*engine.Result); ok {
		return r.MarshalJSON()
	}
	return json.Marshal(v)
}

// boundErrors keeps the errors that fit the store's bound of an
// execution's errors (store.MaxErrorsBytes), and says how many it left out.
func boundErrors(id string, errs []fault.Object) []fault.Object {
	const room = 1 << 10 // for the closing note
	size := 2
	for i, e := range errs {
		b, err := json.Marshal(e)
		if err != nil {
			continue // counted as nothing: the encode of the result reports it
		}
		if size += len(b) + 1; size > store.MaxErrorsBytes-room {
			note := fault.Typed(fault.TooLarge, fault.DataError,
				"execution %s had %d more errors, not kept: its errors are over the stored limit of %d bytes", id, len(errs)-i, store.MaxErrorsBytes).
				WithDetail("limitBytes", store.MaxErrorsBytes)
			return append(slices.Clone(errs[:i]), note.Object())
		}
	}
	return errs
}
