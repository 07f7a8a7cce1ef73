package ids

// The kinds, one per format in use. Two kinds may share a prefix (the two
// "call-" kinds differ in length): each keeps the format its ids have always
// had, since they are stored and compared as they are.
var (
	// Execution is the server's own id for an A2E execution, "exec-" and 96
	// bits; the client's executionId is only an idempotency key (RESOLUTIONS).
	Execution = Kind{"exec-", 12}

	// CapabilityRun is an A2S capability run, "run-" and 96 bits.
	CapabilityRun = Kind{"run-", 12}

	// AgentWorkflow is an agent workflow run, "awf-" and 96 bits.
	AgentWorkflow = Kind{"awf-", 12}

	// EngineExecution names an execution the engine is given no id for: 128
	// bits, no prefix.
	EngineExecution = Kind{"", 16}

	// OperationCall is the executionId of one operation called as a tool,
	// "call-" and 80 bits: each call is an execution of its own.
	OperationCall = Kind{"call-", 10}

	// Task is an agent task's id when the caller gives none, "task-" and 96
	// bits.
	Task = Kind{"task-", 12}

	// AgentCall is the run_id of one task message sent to an agent over the
	// bridge, "call-" and 96 bits. It keys the result to its waiter, so it must
	// not be guessable: a caller reusing a task id gets its own result, never
	// another account's.
	AgentCall = Kind{"call-", 12}

	// Account is an account id, "acct-" and 80 bits.
	Account = Kind{"acct-", 10}

	// Request is an HTTP request's id when the caller sends no usable
	// X-Request-ID, "req-" and 96 bits.
	Request = Kind{"req-", 12}

	// Slot is an execution's rate-limit slot in the shared store, "slot-" and
	// 96 bits.
	Slot = Kind{"slot-", 12}

	// LeaseToken proves that a worker holds a queue item's lease (local and
	// Kafka queues): 96 bits, no prefix.
	LeaseToken = Kind{"", 12}

	// ProgressToken routes an MCP server's progress notifications to the call
	// that asked for them, "sluice-" and 96 bits.
	ProgressToken = Kind{"sluice-", 12}

	// MCPSession is an MCP session of the server (the Mcp-Session-Id
	// header), "mcp-" and 128 bits: it names a session to its key's holder
	// only, but is not to be guessed either.
	MCPSession = Kind{"mcp-", 16}

	// ACPPermission names a permission request an ACP agent behind sluice
	// holds open for its caller's answer, "acpperm-" and 128 bits: whoever
	// has it may answer, so it is not to be guessed.
	ACPPermission = Kind{"acpperm-", 16}

	// ConsoleSession is a web console sign-in (the session cookie's value),
	// "cs-" and 256 bits: whoever holds it acts as the signed-in key until
	// it expires, so it is drawn as long as a key's secret part.
	ConsoleSession = Kind{"cs-", 32}

	// ConsoleCSRF is the token a console form carries beside its session
	// cookie, "csrf-" and 128 bits: a page of another site cannot read it.
	ConsoleCSRF = Kind{"csrf-", 16}

	// TempFile names a file written beside its final name and then renamed
	// into place, ".tmp-" and 64 bits.
	TempFile = Kind{".tmp-", 8}

	// BenchSchema is the PostgreSQL schema of one benchmark configuration,
	// "sluice_bench_" and 48 bits.
	BenchSchema = Kind{"sluice_bench_", 6}

	// Tail ends a name whose other parts say what it names, 48 bits and no
	// prefix: a vault entry the agent registry takes in
	// (agent.<name>.<field>.<tail>) and a scratch test database.
	Tail = Kind{"", 6}
)
