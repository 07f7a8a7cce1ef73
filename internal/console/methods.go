package console

// The gateway methods the console calls: its every read and action is one
// of these, as the signed-in key. A gateway test checks each is in its
// method table (TestConsoleCallsOnlyTableMethods).
const (
	mRunList          = "run.list"
	mRunGet           = "run.get"
	mRunCancel        = "run.cancel"
	mRunAnswer        = "run.answer"
	mRunEvents        = "run.events"
	mWorkflowExecute  = "workflow.execute"
	mToolList         = "tool.list"
	mCapabilitySearch = "account.capabilities"
	mRateLimit        = "account.rate_limit"
	mRegistryList     = "a2s.registry.list"
	mAgentsList       = "admin.agents.list"
	mAgentInvoke      = "agent.invoke"
	mAccountsList     = "admin.accounts.list"
	mAccountsGet      = "admin.accounts.get"
	mAccountsCreate   = "admin.accounts.create"
	mAccountsUpdate   = "admin.accounts.update"
	mKeysList         = "admin.keys.list"
	mKeysCreate       = "admin.keys.create"
	mKeysRevoke       = "admin.keys.revoke"
	mCredentialsList  = "admin.credentials.list"
	mCredentialsPut   = "admin.credentials.put"
	mAuditList        = "admin.audit.list"
	mRegistryGet      = "a2s.registry.get"
	mCapabilityRun    = "capability.run"
	mStats            = "admin.stats.get"
	mAdminRateLimits  = "admin.rate_limits.get"
)

// Methods are the gateway methods the console calls.
var Methods = []string{mRunList, mRunGet, mRunCancel, mRunAnswer, mRunEvents, mToolList,
	mCapabilitySearch, mRateLimit, mRegistryList, mAgentsList, mAgentInvoke, mAccountsList, mAccountsGet,
	mAccountsCreate, mAccountsUpdate, mKeysList, mKeysCreate, mKeysRevoke, mCredentialsList, mCredentialsPut, mAuditList,
	mStats, mAdminRateLimits, mRegistryGet, mCapabilityRun}
