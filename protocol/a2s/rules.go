package a2s

// Rule is one check of the linter. IDs are stable: a rule is never renumbered
// or reused; a retired rule keeps its ID unused.
type Rule struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
}

// Rule IDs. A2S001 and A2S002 (a document that cannot be read) are in
// parse.go.
const (
	RuleRequired         = "A2S010"
	RuleType             = "A2S011"
	RuleUnknownKey       = "A2S012"
	RuleEnum             = "A2S013"
	RuleRecommended      = "A2S014"
	RuleDialectConflict  = "A2S015"
	RuleDialectForm      = "A2S016"
	RuleVersion          = "A2S020"
	RuleProtocolVersion  = "A2S021"
	RuleConstraint       = "A2S022"
	RuleIdentifier       = "A2S023"
	RuleDuplicateTask    = "A2S030"
	RuleFlowUnknownTask  = "A2S031"
	RuleUnreachedTask    = "A2S032"
	RuleFlowRepeatedTask = "A2S033"
	RuleFlowOrder        = "A2S034"
	RuleUnknownTaskRef   = "A2S040"
	RuleUnknownValueRef  = "A2S041"
	RulePathSyntax       = "A2S042"
	RuleTemplateSyntax   = "A2S043"
	RuleConditionSyntax  = "A2S044"
	RuleRefUnresolved    = "A2S045"
	RuleRefTarget        = "A2S046"
	RuleLifecycle        = "A2S050"
	RuleLifecycleAlias   = "A2S051"
	RuleNoLifecycle      = "A2S052"
	RuleOutputNeverSet   = "A2S053"
	RuleOnFailure        = "A2S060"
	RuleTaskDefinition   = "A2S061"
	RuleRequest          = "A2S062"
	RuleLogicSyntax      = "A2S063"
	RulePromptInput      = "A2S064"
	RuleUnknownService   = "A2S065"
	RuleServiceTasks     = "A2S066"
	RuleServiceHost      = "A2S067"
	RuleAtomicImports    = "A2S070"
	RuleAggregateImports = "A2S071"
	RuleImportCycle      = "A2S072"
	RuleUnknownDep       = "A2S073"
	RuleUnknownRegistry  = "A2S074"
	RuleChecksumMismatch = "A2S080"
	RuleChecksumFormat   = "A2S081"
	RuleSecretInput      = "A2S090"
	RuleExample          = "A2S091"
	RuleDuplicateID      = "A2S092"
)

// Rules lists every rule, in ID order. docs/protocols/a2s.md has the same
// table; a test keeps them together.
var Rules = []Rule{
	{RuleSyntax, SeverityError, "the document is not valid YAML or JSON (or has a duplicate key, a second document, a YAML value with no JSON form)"},
	{RuleLimit, SeverityError, "the document is larger, deeper or has more values than the limits"},
	{RuleRequired, SeverityError, "a required field is missing"},
	{RuleType, SeverityError, "a field has the wrong type"},
	{RuleUnknownKey, SeverityWarning, "a key the format does not define (keys starting with x- are extensions and never reported)"},
	{RuleEnum, SeverityError, "a value is not one of those allowed (type, task type, flow type, audit status, permission level, ...)"},
	{RuleRecommended, SeverityWarning, "a recommended field is missing (description, audit, permissions, a service for a request task)"},
	{RuleDialectConflict, SeverityError, "the same thing is given in two dialects (audit at the top and under security, requires_service and service)"},
	{RuleDialectForm, SeverityWarning, "a non-standard form was read (inputs as a list of one-key mappings, input/output for inputs/outputs)"},
	{RuleVersion, SeverityError, "a version is not a semantic version (MAJOR.MINOR.PATCH)"},
	{RuleProtocolVersion, SeverityError, "the a2s protocol version is not 1.x"},
	{RuleConstraint, SeverityError, "a version constraint is not a valid npm-style range"},
	{RuleIdentifier, SeverityError, "an id cannot be used in paths (letters, digits, _ and -, not starting with a digit or -)"},
	{RuleDuplicateTask, SeverityError, "two tasks have the same id"},
	{RuleFlowUnknownTask, SeverityError, "the flow names a task that does not exist"},
	{RuleUnreachedTask, SeverityWarning, "a task is never reached by the flow"},
	{RuleFlowRepeatedTask, SeverityWarning, "a task appears more than once in the flow"},
	{RuleFlowOrder, SeverityWarning, "a task (or a flow condition) reads the output of a task that does not finish before it starts"},
	{RuleUnknownTaskRef, SeverityError, "a mapping, template or condition refers to a task that does not exist"},
	{RuleUnknownValueRef, SeverityError, "a mapping, template or condition refers to an input or output that is not declared"},
	{RulePathSyntax, SeverityError, "a reference path is malformed (inputs.X, outputs.X, capability.X, TASK.outputs.X)"},
	{RuleTemplateSyntax, SeverityError, "a {..} template is malformed (unbalanced or empty braces)"},
	{RuleConditionSyntax, SeverityError, "a condition is not `{path} op value` or a bare path"},
	{RuleRefUnresolved, SeverityError, "a $ref JSON pointer does not resolve in the document"},
	{RuleRefTarget, SeverityWarning, "a $ref is not a local pointer into inputs or schemas"},
	{RuleLifecycle, SeverityError, "a lifecycle is not persistent, session, capability or task"},
	{RuleLifecycleAlias, SeverityWarning, "lifecycle flow or execution is read as task"},
	{RuleNoLifecycle, SeverityWarning, "an output declares no lifecycle"},
	{RuleOutputNeverSet, SeverityWarning, "a capability output has no mapping and no task declares an output of its name: it is always null"},
	{RuleOnFailure, SeverityError, "error_handling.on_failure.action is not continue or abort"},
	{RuleTaskDefinition, SeverityError, "a task lacks what its type needs (a request, a capability, a prompt template, a condition)"},
	{RuleRequest, SeverityError, "a request does not resolve, or is not one OpenAPI operation (one path, one method)"},
	{RuleLogicSyntax, SeverityError, "a logic line is not `name = expression`"},
	{RulePromptInput, SeverityError, "a prompt placeholder names no input of the task"},
	{RuleUnknownService, SeverityError, "a task requires a service that is not declared"},
	{RuleServiceTasks, SeverityError, "a service lists a task that does not exist"},
	{RuleServiceHost, SeverityWarning, "a request's server is not on its task's service host"},
	{RuleAtomicImports, SeverityError, "an atomic capability imports capabilities"},
	{RuleAggregateImports, SeverityError, "an aggregate capability imports a capability that is not atomic"},
	{RuleImportCycle, SeverityError, "capabilities import each other in a cycle"},
	{RuleUnknownDep, SeverityError, "a capability task names a dependency that is not declared"},
	{RuleUnknownRegistry, SeverityError, "a dependency names a registry that is not declared"},
	{RuleChecksumMismatch, SeverityError, "the checksum does not match the document"},
	{RuleChecksumFormat, SeverityError, "the checksum is not sha256:<64 hex digits> (or bare hex)"},
	{RuleSecretInput, SeverityWarning, "an input looks like a secret: secrets come from the vault as service credentials, never as inputs"},
	{RuleExample, SeverityError, "an example names a task, input or output that is not declared"},
	{RuleDuplicateID, SeverityError, "two documents of a set have the same id and version"},
}

var ruleSeverity = func() map[string]Severity {
	m := make(map[string]Severity, len(Rules))
	for _, r := range Rules {
		m[r.ID] = r.Severity
	}
	return m
}()
