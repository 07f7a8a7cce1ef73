package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sluicehq/sluice/internal/engine"
)

// progress prints one line per engine event on stderr, so a person sees which
// operation runs, retries, waits or fails while the workflow executes.
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) event(e engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	where := e.OperationID
	if e.Iteration != nil {
		where = fmt.Sprintf("%s[%d]", e.OperationID, *e.Iteration)
	}
	var line string
	switch e.Kind {
	case engine.EventExecutionStarted:
		line = fmt.Sprintf("▶ execution %s", e.ExecutionID)
	case engine.EventStarted:
		line = fmt.Sprintf("  … %s (%s)", where, e.Operation)
	case engine.EventFinished:
		cached := ""
		if e.Cached {
			cached = ", cached"
		}
		line = fmt.Sprintf("  ✓ %s %dms%s", where, e.Duration, cached)
	case engine.EventRetried:
		line = fmt.Sprintf("  ↻ %s attempt %d failed, retrying in %dms: %s", where, e.Attempt, e.DelayMs, errMessage(e))
	case engine.EventFailed:
		line = fmt.Sprintf("  ✗ %s: %s", where, errMessage(e))
	case engine.EventWaiting:
		line = fmt.Sprintf("  ⏸ %s waiting: %s", where, e.Reason)
	case engine.EventExecutionFinished:
		line = fmt.Sprintf("■ %s in %dms", strings.ToUpper(string(e.Status)), e.Duration)
	default:
		return
	}
	fmt.Fprintln(p.w, printable(line)) // a step's error may quote what an upstream sent
}

func errMessage(e engine.Event) string {
	if e.Error == nil {
		return ""
	}
	return e.Error.Type + ": " + e.Error.Message
}
