// Package wire holds the messages that cross the queue between the gateway and
// the HTTP task agent bridge, in the seed platform's shapes pinned by
// RESOLUTIONS.md ("HTTP task agents"): a task on the tasks topic, a result on
// the results topic keyed by correlation_id, and a monitoring update per step.
// Status words stay the seed platform's (SUCCESS|FAILURE, RUNNING|COMPLETED|
// FAILED), not the E2A ones.
//
// Timestamps are written like the E2A reference (2026-03-28T12:00:00+00:00,
// .ffffff when the microseconds are not zero) and read in any RFC 3339 form;
// a time without an offset (Python's naive isoformat) is read as UTC. Decoders ignore unknown fields (a newer producer may add
// some) but refuse a missing required field, a wrong type, an unknown status
// word and values over the bounds below, naming the field.
package wire

import (
	"encoding/json"
	"time"
)

// Default topic names for the bridge; the wiring may choose others.
const (
	TopicTasks      = "agent.tasks"
	TopicResults    = "agent.results"
	TopicMonitoring = "agent.monitoring"
)

// Bounds every decoder enforces.
const (
	MaxMessageBytes = 16 << 20 // the queue's payload bound
	MaxIDBytes      = 256      // run_id, task_id, step_id, correlation_id, agent_name
	MaxNameBytes    = 1024     // step_name
	MaxErrorBytes   = 64 << 10 // error_message
)

// ResultStatus is a result's outcome.
type ResultStatus string

// Result outcomes.
const (
	Success ResultStatus = "SUCCESS"
	Failure ResultStatus = "FAILURE"
)

// StepStatus is a monitored step's state.
type StepStatus string

// Step states.
const (
	Running   StepStatus = "RUNNING"
	Completed StepStatus = "COMPLETED"
	Failed    StepStatus = "FAILED"
)

// Task asks the bridge to call an agent once (with its retries).
type Task struct {
	RunID     string `json:"run_id"`
	TaskID    string `json:"task_id"`
	AgentName string `json:"agent_name"`
	// InputData is the agent's input object, passed through as it is.
	InputData     json.RawMessage `json:"input_data"`
	CorrelationID string          `json:"correlation_id"`
	Timestamp     time.Time       `json:"timestamp"`
}

// Key is the queue item id of a task: its task_id, the idempotency key, so a
// task enqueued twice while queued is queued once.
func (t Task) Key() string { return t.TaskID }

// Result is what came of a task.
type Result struct {
	RunID  string       `json:"run_id"`
	TaskID string       `json:"task_id"`
	Status ResultStatus `json:"status"`
	// OutputData is the agent's output (null on failure).
	OutputData    json.RawMessage `json:"output_data"`
	CorrelationID string          `json:"correlation_id"`
	// ErrorMessage says why a task failed (null on success).
	ErrorMessage *string   `json:"error_message"`
	Timestamp    time.Time `json:"timestamp"`
}

// Key is the queue item id (and Kafka record key) of a result: its
// correlation_id, as RESOLUTIONS pins.
func (r Result) Key() string { return r.CorrelationID }

// Monitoring reports a step's state.
type Monitoring struct {
	RunID    string     `json:"run_id"`
	StepID   string     `json:"step_id"`
	StepName string     `json:"step_name"`
	Status   StepStatus `json:"status"`
	// Timestamp is when the step reached Status.
	Timestamp time.Time `json:"timestamp"`
	// Metadata is a JSON object or null.
	Metadata json.RawMessage `json:"metadata"`
}

// Key is the queue item id of a monitoring update: one per run, step and
// state, so a repeated update while queued is queued once.
func (m Monitoring) Key() string { return m.RunID + "/" + m.StepID + "/" + string(m.Status) }
