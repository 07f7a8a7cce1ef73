// Package engine runs plans: the one internal format every front end compiles
// into (A2E workflows now, through Compile; A2S capabilities later). A plan is a
// set of steps, each an op.Operation with its own timeout, retry and cache
// policy and an optional outputPath, plus the order of the top-level steps.
// Steps take their inputs by reference, as data-model paths.
//
// Decisions this package makes where the specs and RESOLUTIONS are silent:
//
//   - Status: success when no step failed; under onError stop, the first failure
//     ends the run as failed; under onError continue, partial when at least one
//     step failed and at least one (nested steps included) succeeded, failed
//     when none succeeded. A cancelled context gives cancelled, a suspension
//     waiting.
//   - onError continue applies everywhere, branch and loop bodies included: a
//     failed step is recorded, its result is absent from results (it is null
//     as a loop iteration's output) and the next step runs. The execution's
//     deadline, the nesting bound and the step bound always stop the run.
//   - Results: a step without outputPath has result null. A Conditional's
//     output is {"branch": name}. A Loop's output is, per iteration, the
//     result of the last body step (null when that step has no outputPath or
//     failed). Inside loops results[id] holds the last iteration; in concurrent
//     loops the iteration with the highest index, whatever the finishing order.
//   - Concurrent loops: iterations run on overlays of the data model; only the
//     Loop's output reaches the model outside. Under onError stop the first
//     iteration to fail cancels the others, whose interrupted steps are not
//     reported as errors; under continue failures do not halt iterations.
//   - Retries: only a *fault.Error with Retryable is retried. When a step's own
//     timeout passes, the operation's error decides (a fault it returned keeps
//     its Retryable); when it returned none, the timeout is retried unless the
//     operation's Spec has SideEffects. Operations that retry themselves (an
//     agent invoker) should return errors that are not Retryable. Retry-After
//     is a floor on the jittered delay; a delay that would pass the deadline
//     ends the step with its last error.
//   - Time: an attempt's timeout never exceeds the budget left; running out of
//     budget is a TimeoutError for the step that was running and stops the run.
//     Elapsed time is checkpointed, so time while no process ran the execution
//     does not count. Steps are also checked between one another, so a step
//     that ignores its context cannot carry a cancelled execution on; one that
//     does not return at all is abandoned after Limits.AbandonGrace.
//   - Checkpoints are saved after every finished step, every control decision
//     and every RunContext.Save. Resume replays the plan, skipping finished
//     positions; a control step that decided but did not finish follows its
//     recorded decision. A step that was running when the process stopped runs
//     again (at-least-once); a finished step never does. Cancelled executions
//     may be resumed (a server shutting down cancels its runs); finished ones
//     give their result back unchanged.
//   - Suspension: the first step to return *op.Suspend makes the execution
//     waiting; Resume with an Answer runs that step again with
//     RunContext.Answer set.
//   - Caching: only steps whose Spec is Pure (and not Control), with a CacheTTL,
//     that set cache: true are cached, per account, keyed by a hash of the
//     operation name, its compacted config and the values at its op.Reader
//     paths. A step whose read path is missing is not looked up; it runs and
//     reports the DataError.
//   - Data: every run has a data budget (RunOptions.MaxDataBytes, default
//     Limits.MaxDataBytes, 64 MiB) in bytes of estimated heap (datamodel.Size,
//     a shared value counted once per reference, as it is once encoded).
//     Operations whose Spec has MetersData charge it before they allocate;
//     the engine charges every other output, cache hits included, and loop
//     output arrays. Going over is fatal under any onError; the run ends
//     failed and its data model and results are dropped.
//   - Events are delivered one at a time (never concurrently) and carry only
//     public data: ids, positions, attempt numbers, delays and fault objects.
package engine
