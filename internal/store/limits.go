package store

// Bounds every implementation enforces. They are ceilings above the
// configurable per-account limits (a 1 MiB document by default, 10 MiB
// responses, 1 MiB stored values), so a server configured generously still
// fits, while one caller can never make a single write stall everyone's group
// commit for long.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000

	MaxIDBytes        = 128 // account, key, credential, execution ids
	MaxClientIDBytes  = 256 // the client's executionId
	MaxNameBytes      = 256 // names, descriptions' neighbours: types, prefixes, windows
	MaxTextBytes      = 4096
	MaxDigestBytes    = 256
	MaxKeyHashBytes   = 128
	MaxCredentialSize = 1 << 20 // nonce + ciphertext
	MaxCredentials    = 100_000
	// MaxCredentialHosts is policy.MaxCredentialHosts, the hosts one
	// credential may be bound to.
	MaxCredentialHosts = 100

	MaxPermissionsBytes = 1 << 20
	MaxLimitsBytes      = 64 << 10

	MaxDocumentBytes   = 8 << 20
	MaxInputBytes      = 8 << 20
	MaxResultBytes     = 64 << 20
	MaxErrorsBytes     = 4 << 20
	MaxCheckpointBytes = 64 << 20

	MaxEventBytes         = 1 << 20
	MaxEventsPerAppend    = 1000
	MaxEventsPerExecution = 100_000

	MaxAuditBatch        = 10_000
	MaxAuditDetailsBytes = 8 << 10

	MaxRateCounterBatch = 100_000

	MaxKVValueBytes     = 16 << 20
	MaxKVKeysPerAccount = 10_000

	MaxMCPServersPerAccount = 32
	MaxMCPServerNameBytes   = 64
	MaxMCPCommandBytes      = 128
	MaxMCPURLBytes          = 2048
	MaxMCPHeaders           = 8

	MaxAPIKeysPerAccount = 100
	MaxAPIKeysMarked     = 100_000

	MaxDiscoveryUsageBatch = 1000
	// MaxDiscoveryUsagePerAccount bounds the rows one account keeps (its
	// words of all entries): an account sending feedback at its rate limit
	// all day cannot grow the table without end. Rows go with the
	// retention, or when an admin forgets them.
	MaxDiscoveryUsagePerAccount = 10000
	MaxDiscoveryTermBytes       = 64  // discovery's own cut of a token
	MaxDiscoveryEntryIDBytes    = 512 // NAME.operationId, capability and tool ids: over MaxIDBytes
)
