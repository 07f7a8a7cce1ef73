// Package bridge carries HTTP task agent calls over a queue, so a gateway
// enqueues and a worker anywhere executes (issue 8; RESOLUTIONS "HTTP task
// agents"). A Client (in the gateway) puts a task message on the tasks topic
// and waits for its result on its own reply topic; a Worker (in `sluice
// serve`'s in-process pool or in `sluice worker`) leases tasks, calls the
// agent through internal/agent's Invoker (which alone retries), publishes
// the result to the task's reply topic and, when configured, monitoring
// updates, and only then acks the task.
//
// Delivery is at least once end to end. A worker that dies mid-task leaves
// the task to its lease; another worker takes it and calls the agent again
// with the same task_id, the agent's idempotency key. The result of a task
// may therefore be published twice; the Client hands the first to the
// caller and drops the rest, so a caller sees exactly one result.
//
// Queue item ids are run_id/task_id for tasks and results (the seed
// platform keys results by correlation_id; two tasks of one correlation id
// must not shadow each other in a queue that de-duplicates by id).
package bridge
