// Package agenthttp is the wire contract of HTTP task agents
// (specs/a2a-agent-http.md; "HTTP task agents" in RESOLUTIONS): the task
// request an agent is POSTed and the response it answers with, the table that
// says which HTTP statuses are retried, the agent registry's entries (auth,
// timeout, retry configuration) and the queue messages of the executor
// bridge (task, result, monitoring).
//
// It is a pure codec: it imports only the standard library. Decoders are
// bounded (bytes and nesting depth), never panic, and name the field and
// byte offset of the first problem in an *Error. Secret values of registry
// entries never print and cannot be encoded: an entry is written only once
// every secret is a vault reference (credentialRef).
//
// This is not Google's A2A protocol; it is the seed platform's simple
// synchronous contract, named "HTTP task agents" in sluice's docs.
package agenthttp
