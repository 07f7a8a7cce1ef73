package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/fault"
)

// exitFor is the one map from an error to its exit code and message
// (RESOLUTIONS "Conventions"): 1 the work failed or the server refused it,
// 2 usage and invalid input. A command's own exitError says its code; a
// server's answer is classed by its HTTP status (400 and 413 are the
// input's fault: 2); a fault by its kind; a server that cannot be reached
// gets the hint that lets a person act. What is left is other: from Main,
// cobra's own errors (unknown command or flag, wrong argument count), usage
// (2); from a server call, an answer that could not be read (1).
func exitFor(err error, other int) *exitError {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee
	}
	var ce *client.Error
	if errors.As(err, &ce) {
		code := ExitFailed
		if ce.Status == 400 || ce.Status == 413 {
			code = ExitInvalid
		}
		return &exitError{code: code, msg: ce.Error()}
	}
	var fe *fault.Error
	if errors.As(err, &fe) {
		code := ExitFailed
		if fe.Kind == fault.Invalid || fe.Kind == fault.TooLarge {
			code = ExitInvalid
		}
		return &exitError{code: code, msg: fe.Message}
	}
	if base, ok := unreachable(err); ok {
		return &exitError{code: ExitFailed, msg: fmt.Sprintf("cannot reach sluice at %s: is `sluice serve` running? set SLUICE_URL", base)}
	}
	var ue *url.Error
	if errors.As(err, &ue) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &exitError{code: ExitFailed, msg: err.Error()}
	}
	return &exitError{code: other, msg: err.Error()}
}

// unreachable reports whether err is a request that found no server (no
// connection, or no such host), and the server's URL.
func unreachable(err error) (string, bool) {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return "", false
	}
	var op *net.OpError
	var dns *net.DNSError
	if !(errors.As(err, &op) && op.Op == "dial") && !errors.As(err, &dns) {
		return "", false
	}
	base := ue.URL
	if u, perr := url.Parse(ue.URL); perr == nil {
		base = u.Scheme + "://" + u.Host
	}
	return base, true
}

// serverError is exitFor for a client call's error: one the server's
// answer does not explain (a stream cut short, a body that is not JSON) is
// the work failing, 1.
func serverError(err error) error { return exitFor(err, ExitFailed) }

// statusExit is the exit of a command that reports a run's status: 0 for
// success (and for a run still queued or running, which has not failed),
// 3 for one waiting for a decision, 1 for failed, partial or cancelled.
func statusExit(status string) error {
	switch status {
	case "success", "queued", "running", "":
		return nil
	case "waiting":
		return silent(ExitWaiting)
	}
	return silent(ExitFailed)
}

// checkSessionURL refuses a session URL that cannot be the session
// endpoint, saying the path it has: ws://HOST:PORT/api/v1/session.
func checkSessionURL(flag, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fail(ExitInvalid, "%s %q is not a URL: the session endpoint is ws://HOST:PORT/api/v1/session", flag, raw)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return fail(ExitInvalid, "%s %q: the session endpoint is a WebSocket URL, ws://%s/api/v1/session (wss:// with TLS)", flag, raw, u.Host)
	}
	if strings.TrimRight(u.Path, "/") == "" {
		return fail(ExitInvalid, "%s %q has no path: the session endpoint is %s://%s/api/v1/session", flag, raw, u.Scheme, u.Host)
	}
	return nil
}
