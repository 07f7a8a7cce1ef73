package cli_test

import (
	"net"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/cli"
)

// closedAddr is a 127.0.0.1 address nothing listens on: one just released.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// errorLines are the lines sluice printed as its error (logs are the rest).
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "sluice:") || strings.Contains(l, "panic") || strings.HasPrefix(l, "goroutine ") {
			out = append(out, l)
		}
	}
	return out
}

// A worker or gateway that cannot open what it needs exits with one line
// naming the cause: 1 for what cannot be reached, 2 for a configuration
// at fault. Both panicked before: the worker closed the nil it had just
// returned, serve closed a nil *natsq.Queue inside a non-nil queue.Queue.
func TestStartupFailures(t *testing.T) {
	pg, nats := closedAddr(t), closedAddr(t)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"worker, database unreachable", []string{"worker", "--data", t.TempDir(), "--store", "postgres://sluice@" + pg + "/sluice"},
			cli.ExitFailed, pg},
		{"serve, NATS unreachable", []string{"serve", "--data", t.TempDir(), "--addr", "127.0.0.1:0", "--queue", "nats://" + nats},
			cli.ExitFailed, "nats://" + nats},
		{"serve, queue URL with an unknown parameter", []string{"serve", "--data", t.TempDir(), "--addr", "127.0.0.1:0", "--queue", "nats://" + nats + "?colour=red"},
			cli.ExitInvalid, `parameter "colour"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := sluice(t, "", c.args...)
			lines := errorLines(stderr)
			if code != c.code || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
				t.Fatalf("exit %d, error lines %q; want exit %d and one line naming %q\nstderr:\n%s", code, lines, c.code, c.want, stderr)
			}
		})
	}
}
