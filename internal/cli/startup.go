package cli

import (
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// startupFailure is the exit of a command whose gateway, worker or store
// did not open: 2 when the configuration is at fault (a queue URL with an
// unknown parameter, keys that are not the store's), 1 otherwise (a
// database or queue that cannot be reached), with the cause on one line
// so that a supervisor's log shows it whole.
func startupFailure(err error) error {
	code := ExitFailed
	if fault.KindOf(err) == fault.Invalid {
		code = ExitInvalid
	}
	return fail(code, "%s", oneLine(err.Error()))
}

// oneLine joins the lines of a message with "; ".
func oneLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "; ")
}
