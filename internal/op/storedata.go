package op

import (
	"context"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/storage/storekey"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// StoreDataOp writes a value of the data model to storage.
var StoreDataOp = Registration{
	Spec: Spec{
		Name:    a2e.OpStoreData,
		Summary: "Store a value of the data model under a key",
		Description: "Writes the value at inputPath under key in storage: localStorage (kept for the " +
			"account), sessionStorage (kept for the session, or for the execution when there is none; " +
			"expires with it) or file (a JSON file in the account's folder of the data directory). key is " +
			"a relative name; \"/\" makes sub-folders; \"..\", a leading \"/\" and segments starting with " +
			"\".\" are refused. key may hold {/workflow/...} references. Values over the stored-value " +
			"limit (1 MiB by default) are refused. Its result is null; read the value back with LoadData.",
		SideEffects: true,
		Example: `{"type":"operationUpdate","operationId":"save","operation":{"StoreData":{"inputPath":"/input/report","storage":"localStorage","key":"reports/latest"}}}
{"type":"operationUpdate","operationId":"load","operation":{"LoadData":{"storage":"localStorage","key":"reports/latest","outputPath":"/workflow/report"}}}
{"type":"beginExecution","executionId":"store-example","operationOrder":["save","load"]}
`,
	},
	New: newStoreData,
}

const storeBase = "operation.StoreData"

type storeData struct {
	input   a2e.Path
	storage string
	key     storeKey
	d       *Deps
}

func newStoreData(raw json.RawMessage, d *Deps) (Operation, error) {
	var cfg a2e.StoreData
	if err := decodeStrict(raw, &cfg, a2e.OpStoreData); err != nil {
		return nil, err
	}
	if err := validateCommon(cfg.Common, storeBase); err != nil {
		return nil, err
	}
	s := &storeData{storage: cfg.Storage, d: d}
	var err error
	if s.input, err = parseConfigPath(cfg.InputPath, storeBase+".inputPath"); err != nil {
		return nil, err
	}
	if err := oneOf(cfg.Storage, a2e.StorageNames, storeBase+".storage", "storage"); err != nil {
		return nil, err
	}
	if s.key, err = parseStoreKey(cfg.Key, storeBase+".key"); err != nil {
		return nil, err
	}
	return s, nil
}

// Reads is the input and whatever the key reads.
func (s *storeData) Reads() []a2e.Path { return append([]a2e.Path{s.input}, s.key.tpl.refs()...) }

// Writes: StoreData has no outputPath.
func (s *storeData) Writes() (a2e.Path, bool) { return a2e.Path{}, false }

// Run stores the value; the output is null.
func (s *storeData) Run(ctx context.Context, rc *RunContext) (any, error) {
	if s.d.Storage == nil {
		return nil, fault.Typed(fault.Unavailable, fault.ExecutionError, "storage is not configured on this server").WithOp(rc.OperationID)
	}
	v, err := rc.Data.Get(s.input)
	if err != nil {
		return nil, err
	}
	limit := s.d.Limits.MaxStoredBytes
	if limit <= 0 {
		limit = DefaultLimits().MaxStoredBytes
	}
	size, err := jsonSize(v)
	if err != nil {
		return nil, dataError(s.input, "the value at %s cannot be stored as JSON", s.input).WithCause(err).WithOp(rc.OperationID)
	}
	if size > limit {
		return nil, dataError(s.input, "the value at %s is over the limit of %d bytes for a stored value", s.input, limit).
			WithDetail("limitBytes", limit).WithOp(rc.OperationID).
			WithSuggestions("Store a smaller part of it, e.g. after FilterData or TransformData select")
	}
	key, err := s.key.render(rc.Data, s.storage)
	if err != nil {
		return nil, withOpID(err, rc.OperationID)
	}
	if err := s.d.Storage.Put(ctx, storeArea(s.storage, rc), key, v); err != nil {
		return nil, withOpID(err, rc.OperationID)
	}
	return nil, nil
}

// storeArea is where an operation of this run keeps its keys.
func storeArea(storage string, rc *RunContext) Area {
	session := rc.SessionID
	if session == "" {
		session = rc.ExecutionID // no session: sessionStorage lives as long as the execution
	}
	return Area{Storage: storage, Account: rc.Account, SessionID: session}
}

// storeKey is a storage key, literal or with references.
type storeKey struct {
	tpl textTemplate
}

// parseStoreKey checks a literal key at build time; a key with references is
// checked once rendered.
func parseStoreKey(s, jsonPath string) (storeKey, error) {
	if s == "" {
		return storeKey{}, invalidConfig(jsonPath, "%s is required", jsonPath).
			WithSuggestions("Give a key such as results or reports/2026-01")
	}
	if len(s) > 4*storekey.MaxKeyLength {
		return storeKey{}, invalidConfig(jsonPath, "%s is over %d characters", jsonPath, 4*storekey.MaxKeyLength)
	}
	t, err := parseTextTemplate(s, jsonPath)
	if err != nil {
		return storeKey{}, err
	}
	if lit, ok := t.literal(); ok {
		if err := storekey.Check(lit); err != nil {
			return storeKey{}, invalidConfig(jsonPath, "%s: %s", jsonPath, err.Error()).
				WithSuggestions("Keys are relative names such as results or reports/2026-01, without '..' or a leading '/'")
		}
	}
	return storeKey{tpl: t}, nil
}

func (k storeKey) render(data Data, storage string) (string, error) {
	key, err := k.tpl.render(data)
	if err != nil {
		return "", err
	}
	if err := storekey.Check(key); err != nil {
		return "", fault.Typed(fault.Invalid, fault.DataError, "the %s key is invalid after interpolation: %s", storage, err.Error()).
			WithDetail("storage", storage)
	}
	return key, nil
}

// jsonSize is the length of v as JSON. (encoding/json builds the whole text
// before writing any of it, so there is no stopping early; the value is in
// memory already and bounded by the limits of whatever produced it.)
func jsonSize(v any) (int64, error) {
	b, err := json.Marshal(v)
	return int64(len(b)), err
}

// withOpID names the operation on a fault that does not name one yet.
func withOpID(err error, id string) error {
	if fe, ok := fault.As(err); ok && fe.OperationID == "" {
		fe.WithOp(id)
	}
	return err
}
