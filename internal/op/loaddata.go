package op

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// LoadDataOp reads a stored value back into the data model.
var LoadDataOp = Registration{
	Spec: Spec{
		Name:    a2e.OpLoadData,
		Summary: "Read a stored value back into the data model",
		Description: "Reads key from storage (localStorage, sessionStorage or file; the same scopes as " +
			"StoreData) and writes it to outputPath. A missing key gives default when one is set, " +
			"otherwise a DataError naming the storage and key. key may hold {/workflow/...} references.",
		Example: `{"type":"operationUpdate","operationId":"load-settings","operation":{"LoadData":{"storage":"localStorage","key":"settings","default":{"pageSize":20},"outputPath":"/workflow/settings"}}}
{"type":"beginExecution","executionId":"load-example","operationOrder":["load-settings"]}
`,
	},
	New: newLoadData,
}

const loadBase = "operation.LoadData"

type loadData struct {
	storage    string
	key        storeKey
	output     a2e.Path
	def        any
	hasDefault bool
	d          *Deps
}

func newLoadData(raw json.RawMessage, d *Deps) (Operation, error) {
	var cfg a2e.LoadData
	if err := decodeStrict(raw, &cfg, a2e.OpLoadData); err != nil {
		return nil, err
	}
	if err := validateCommon(cfg.Common, loadBase); err != nil {
		return nil, err
	}
	l := &loadData{storage: cfg.Storage, d: d}
	if err := oneOf(cfg.Storage, a2e.StorageNames, loadBase+".storage", "storage"); err != nil {
		return nil, err
	}
	var err error
	if l.key, err = parseStoreKey(cfg.Key, loadBase+".key"); err != nil {
		return nil, err
	}
	if l.output, err = parseOutputPath(cfg.OutputPath, loadBase+".outputPath"); err != nil {
		return nil, err
	}
	if len(cfg.Default) > 0 {
		// "default": null is a default of null, not an absent default.
		if err := json.Unmarshal(cfg.Default, &l.def); err != nil {
			return nil, invalidConfig(loadBase+".default", "%s.default is not valid JSON", loadBase).WithCause(err)
		}
		l.hasDefault = true
	}
	return l, nil
}

// Reads is whatever the key reads.
func (l *loadData) Reads() []a2e.Path { return l.key.tpl.refs() }

// Writes is the outputPath.
func (l *loadData) Writes() (a2e.Path, bool) { return l.output, true }

// Run reads the value; the engine writes it to outputPath.
func (l *loadData) Run(ctx context.Context, rc *RunContext) (any, error) {
	if l.d.Storage == nil {
		return nil, fault.Typed(fault.Unavailable, fault.ExecutionError, "storage is not configured on this server").WithOp(rc.OperationID)
	}
	key, err := l.key.render(rc.Data, l.storage)
	if err != nil {
		return nil, withOpID(err, rc.OperationID)
	}
	v, ok, err := l.d.Storage.Get(ctx, storeArea(l.storage, rc), key)
	if err != nil {
		return nil, withOpID(err, rc.OperationID)
	}
	if ok {
		return v, nil
	}
	if l.hasDefault {
		return l.def, nil
	}
	return nil, fault.Typed(fault.Invalid, fault.DataError, "no value is stored under key %q in %s", key, l.storage).
		WithDetail("storage", l.storage).WithDetail("key", key).WithOp(rc.OperationID).
		WithSuggestions("Store it first with StoreData, or give LoadData a default")
}
