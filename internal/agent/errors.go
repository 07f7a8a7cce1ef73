package agent

import (
	"errors"
	"fmt"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// invalidEntry turns a codec error into an Invalid fault naming the field.
func invalidEntry(err error) *fault.Error {
	var ae *agenthttp.Error
	if errors.As(err, &ae) {
		fe := fault.New(fault.Invalid, "agent %s", trimWhat(ae))
		if ae.Path != "" {
			fe = fe.WithDetail("field", ae.Path)
		}
		return fe
	}
	if fe, ok := fault.As(err); ok {
		return fe
	}
	return fault.New(fault.Invalid, "invalid agent entry").WithCause(err)
}

// trimWhat is the codec's message without its "agenthttp: " prefix.
func trimWhat(ae *agenthttp.Error) string {
	s := ae.What
	if ae.Path != "" {
		s += ": field " + ae.Path
	}
	return s + ": " + ae.Message
}

func notFound(name string) *fault.Error {
	return fault.New(fault.NotFound, "agent %q is not registered", name).WithDetail("agent", name).
		WithSuggestions("List the registered agents with `sluice agents list`")
}

// upstream is a failure of the agent itself (its answer, not our request).
func upstream(name, format string, args ...any) *fault.Error {
	return fault.New(fault.Upstream, "agent %s %s", name, fmt.Sprintf(format, args...)).WithDetail("agent", name)
}
