package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"time"

	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// OnError says what a failed step does to the rest of the execution.
type OnError string

// The OnError policies.
const (
	// Stop ends the execution at the first failed step (status failed).
	Stop OnError = "stop"
	// Continue records the failure and runs the later steps (status partial or failed).
	Continue OnError = "continue"
)

// Plan is the one internal format the engine runs: steps with ids, each with the
// operation to run and its own policy, and the order of the top-level steps.
// Steps read their inputs by reference (data-model paths inside their
// operations), so a plan is a graph whose edges are those paths. A2E workflows
// compile into it (Compile); other front ends fill it the same way.
//
// A Plan is read-only once built and may be run by many executions at once.
type Plan struct {
	Steps   map[string]*Step // by step id
	Order   []string         // top-level steps, in order
	OnError OnError          // "" means Stop
	// Digest identifies the plan's content; Resume refuses a checkpoint made by a
	// plan with another digest. Empty disables the check (hand-built plans).
	Digest string
}

// Step is one configured operation and the engine's policy for it.
type Step struct {
	ID   string
	Name string // operation name, as in the catalog
	Line int    // document line of its definition, 0 when unknown
	Op   op.Operation
	Spec op.Spec
	// Config is the raw operation config: part of the cache key, never logged.
	Config json.RawMessage
	// Output is where the step's output is written; nil when it has none, in
	// which case its result is null.
	Output *a2e.Path
	// Timeout bounds one attempt; 0 means the engine's default. It never exceeds
	// the execution's remaining budget.
	Timeout time.Duration
	Retry   RetryOverride
	// Cache asks for the output of a pure operation to be cached.
	Cache bool
	// OnError overrides the plan's OnError for this step ("" : the plan's).
	OnError OnError
}

// onError is what a failure of st does: its own policy, else the plan's.
func (st *Step) onError(p *Plan) OnError {
	if st.OnError != "" {
		return st.OnError
	}
	return p.onError()
}

// RetryOverride holds a step's own retry settings; nil fields take the engine's.
type RetryOverride struct {
	MaxRetries   *int
	InitialDelay *time.Duration
	MaxDelay     *time.Duration
}

// ComputeDigest returns a digest of the plan's order, policy and step configs.
// It is stable across processes, so a checkpoint can be matched to its plan
// after a restart.
func (p *Plan) ComputeDigest() string {
	h := sha256.New()
	write := func(s string) {
		var n [8]byte
		for i, l := 0, len(s); i < 8; i, l = i+1, l>>8 {
			n[i] = byte(l)
		}
		h.Write(n[:])
		h.Write([]byte(s))
	}
	write(string(p.OnError))
	for _, id := range p.Order {
		write(id)
	}
	ids := make([]string, 0, len(p.Steps))
	for id := range p.Steps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		s := p.Steps[id]
		write(id)
		write(s.Name)
		write(string(compactJSON(s.Config)))
		if s.OnError != "" {
			// Only when set, so digests of plans without it stay what they were
			// (checkpoints made before it existed still resume).
			write("onError:" + string(s.OnError))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// onError is the effective policy.
func (p *Plan) onError() OnError {
	if p.OnError == Continue {
		return Continue
	}
	return Stop
}

// Replayable reports whether every step is a data operation (op.Spec.Pure,
// not a control step): the run reads nothing outside its input, acts on
// nothing, waits for nothing and asks nobody, and ends in the time its data
// takes. Running such a plan again gives its caller the same answer and
// nobody else anything to see, so the record of a synchronous run of it need
// not exist before it ends (execution.Manager.Execute). An ApiCall GET is
// not replayable in this sense even though it changes nothing: it reaches an
// upstream, so a resubmission while it runs would reach it twice, and it can
// run long enough to be listed, followed or cancelled by its id.
func (p *Plan) Replayable() bool {
	for _, st := range p.Steps {
		if !st.Spec.Pure || st.Spec.Control || st.Spec.SideEffects {
			return false
		}
	}
	return true
}

// SideEffects reports whether any step of the plan changes the world outside
// the execution (op.Spec.SideEffects, unless the configured operation says it
// is safe: an ApiCall GET). A plan without any may run twice with nothing to
// show for it but the time.
func (p *Plan) SideEffects() bool {
	for _, st := range p.Steps {
		if !st.Spec.SideEffects {
			continue
		}
		if s, ok := st.Op.(op.SafeOperation); ok && s.Safe() {
			continue
		}
		return true
	}
	return false
}
