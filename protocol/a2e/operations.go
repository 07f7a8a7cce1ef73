package a2e

import "encoding/json"

// Operation names of the catalog. LoadData (RESOLUTIONS) and InvokeAgent
// (issue 8: agents as workflow steps) are sluice's additions.
const (
	OpApiCall       = "ApiCall"
	OpFilterData    = "FilterData"
	OpTransformData = "TransformData"
	OpConditional   = "Conditional"
	OpLoop          = "Loop"
	OpStoreData     = "StoreData"
	OpLoadData      = "LoadData"
	OpWait          = "Wait"
	OpMergeData     = "MergeData"
	OpInvokeAgent   = "InvokeAgent"
)

// OperationNames lists the catalog in the spec's order, then sluice's
// additions: LoadData, InvokeAgent.
var OperationNames = []string{
	OpApiCall, OpFilterData, OpTransformData, OpConditional, OpLoop,
	OpStoreData, OpWait, OpMergeData, OpLoadData, OpInvokeAgent,
}

// Common holds the fields every operation may carry.
type Common struct {
	// Timeout in milliseconds for one attempt; never exceeds the execution's budget.
	Timeout *int64 `json:"timeout,omitempty"`
	// Retry overrides the default retry policy.
	Retry *RetryPolicy `json:"retry,omitempty"`
	// Cache turns result caching on (pure data operations) or off (ApiCall GET).
	Cache *bool `json:"cache,omitempty"`
}

// RetryPolicy overrides the engine's retry defaults for one operation.
type RetryPolicy struct {
	MaxRetries     *int   `json:"maxRetries,omitempty"`
	InitialDelayMs *int64 `json:"initialDelayMs,omitempty"`
	MaxDelayMs     *int64 `json:"maxDelayMs,omitempty"`
	// Unsafe allows retrying POST and PATCH on every retryable outcome.
	Unsafe bool `json:"unsafe,omitempty"`
}

// ApiCall executes an HTTP request.
type ApiCall struct {
	Common
	Method  string                     `json:"method"`
	URL     string                     `json:"url"`
	Headers map[string]json.RawMessage `json:"headers,omitempty"` // string or {"credentialRef":{"id":...}}
	Body    json.RawMessage            `json:"body,omitempty"`
	// IdempotencyKey is sent as Idempotency-Key and makes unsafe methods retryable.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// MaxResponseBytes lowers the response size limit for this operation;
	// it may not be above the server's (or the account's data budget).
	MaxResponseBytes int64  `json:"maxResponseBytes,omitempty"`
	OutputPath       string `json:"outputPath"`
}

// CredentialRef names a vault entry in place of a header value or body string.
type CredentialRef struct {
	CredentialRef struct {
		ID string `json:"id"`
	} `json:"credentialRef"`
}

// Condition is one FilterData condition.
type Condition struct {
	Field    string          `json:"field"`
	Operator string          `json:"operator"`
	Value    json.RawMessage `json:"value,omitempty"` // a JSON value or {"path": "/workflow/..."}
}

// FilterData keeps the items of an array for which every condition holds.
type FilterData struct {
	Common
	InputPath  string      `json:"inputPath"`
	Conditions []Condition `json:"conditions"`
	OutputPath string      `json:"outputPath"`
}

// Transform names.
const (
	TransformMap       = "map"
	TransformSort      = "sort"
	TransformGroup     = "group"
	TransformAggregate = "aggregate"
	TransformSelect    = "select"
)

// TransformNames lists every transform.
var TransformNames = []string{TransformMap, TransformSort, TransformGroup, TransformAggregate, TransformSelect}

// TransformData reshapes data; Config is decoded by transform into one of the
// *Config types below.
type TransformData struct {
	Common
	InputPath  string          `json:"inputPath"`
	Transform  string          `json:"transform"`
	Config     json.RawMessage `json:"config,omitempty"`
	OutputPath string          `json:"outputPath"`
}

// SortConfig: stable sort by field; missing fields sort last.
type SortConfig struct {
	Field string `json:"field"`
	Order string `json:"order,omitempty"` // asc (default) | desc
}

// SelectConfig projects objects to Fields, or extracts the one nested Field.
type SelectConfig struct {
	Fields []string `json:"fields,omitempty"`
	Field  string   `json:"field,omitempty"`
}

// GroupConfig groups items by the text of a field.
type GroupConfig struct {
	Field string `json:"field"`
}

// Aggregation is one aggregate: op over field, named as.
type Aggregation struct {
	Op    string `json:"op"` // count|sum|avg|min|max
	Field string `json:"field,omitempty"`
	As    string `json:"as,omitempty"`
}

// Aggregation ops of the aggregate transform.
const (
	AggCount = "count"
	AggSum   = "sum"
	AggAvg   = "avg"
	AggMin   = "min"
	AggMax   = "max"
)

// AggregationOps lists every aggregation op.
var AggregationOps = []string{AggCount, AggSum, AggAvg, AggMin, AggMax}

// AggregateConfig computes aggregations, optionally per group.
type AggregateConfig struct {
	Operations []Aggregation `json:"operations"`
	GroupBy    string        `json:"groupBy,omitempty"`
}

// MapConfig maps each element by an expr-lang Expression, or reshapes it by Fields.
type MapConfig struct {
	Expression string            `json:"expression,omitempty"`
	Fields     map[string]string `json:"fields,omitempty"`
}

// Test is the Conditional's condition.
type Test struct {
	Path     string          `json:"path"`
	Operator string          `json:"operator"`
	Value    json.RawMessage `json:"value,omitempty"`
}

// Conditional runs ifTrue or ifFalse.
type Conditional struct {
	Common
	Condition  Test     `json:"condition"`
	IfTrue     []string `json:"ifTrue"`
	IfFalse    []string `json:"ifFalse,omitempty"`
	OutputPath string   `json:"outputPath,omitempty"`
}

// Loop runs its operations once per item of an array.
type Loop struct {
	Common
	InputPath     string   `json:"inputPath"`
	Operations    []string `json:"operations"`
	OutputPath    string   `json:"outputPath,omitempty"`
	Concurrency   int      `json:"concurrency,omitempty"`   // default 1
	MaxIterations int      `json:"maxIterations,omitempty"` // default from limits; never above them
}

// Storage kinds.
const (
	StorageLocal   = "localStorage"
	StorageSession = "sessionStorage"
	StorageFile    = "file"
)

// StorageNames lists every storage.
var StorageNames = []string{StorageLocal, StorageSession, StorageFile}

// StoreData writes the value at InputPath under Key.
type StoreData struct {
	Common
	InputPath string `json:"inputPath"`
	Storage   string `json:"storage"`
	Key       string `json:"key"`
}

// LoadData reads Key back into OutputPath; a missing key gives Default when set,
// otherwise a DataError.
type LoadData struct {
	Common
	Storage    string          `json:"storage"`
	Key        string          `json:"key"`
	OutputPath string          `json:"outputPath"`
	Default    json.RawMessage `json:"default,omitempty"`
}

// Wait pauses for Duration milliseconds (0..600000).
type Wait struct {
	Common
	Duration int64 `json:"duration"`
}

// InvokeAgent sends one task to a registered HTTP task agent and stores its
// output. It has no retry and no cache field: the agent invoker alone retries,
// by the registry's retry_config (RESOLUTIONS), and an agent's answer is not a
// pure function of its input.
type InvokeAgent struct {
	// Timeout in milliseconds bounds the whole call, the invoker's retries
	// included; each HTTP attempt is bounded by the registry's timeout.
	Timeout *int64 `json:"timeout,omitempty"`
	// Agent is the registry name.
	Agent string `json:"agent"`
	// Input is the task's input_data: an object whose strings may hold
	// {/workflow/...} references, or one whole reference to an object; absent: {}.
	Input json.RawMessage `json:"input,omitempty"`
	// TaskID is the idempotency key (may hold references); absent: derived
	// from the account, execution, operation and input.
	TaskID     string `json:"taskId,omitempty"`
	OutputPath string `json:"outputPath"`
}

// Merge strategies.
const (
	MergeConcat    = "concat"
	MergeUnion     = "union"
	MergeIntersect = "intersect"
	MergeDeep      = "deepMerge"
)

// MergeStrategies lists every strategy.
var MergeStrategies = []string{MergeConcat, MergeUnion, MergeIntersect, MergeDeep}

// MergeData merges two or more sources.
type MergeData struct {
	Common
	Sources    []string `json:"sources"`
	Strategy   string   `json:"strategy"`
	OutputPath string   `json:"outputPath"`
}

// Operators of FilterData and Conditional. Exists and Empty are Conditional only.
const (
	OpEq         = "=="
	OpNe         = "!="
	OpGt         = ">"
	OpLt         = "<"
	OpGe         = ">="
	OpLe         = "<="
	OpIn         = "in"
	OpContains   = "contains"
	OpStartsWith = "startsWith"
	OpEndsWith   = "endsWith"
	OpExists     = "exists"
	OpEmpty      = "empty"
)

// FilterOperators are the operators of FilterData conditions.
var FilterOperators = []string{OpEq, OpNe, OpGt, OpLt, OpGe, OpLe, OpIn, OpContains, OpStartsWith, OpEndsWith}

// ConditionOperators are the operators of a Conditional: FilterOperators plus exists and empty.
var ConditionOperators = append(append([]string{}, FilterOperators...), OpExists, OpEmpty)
