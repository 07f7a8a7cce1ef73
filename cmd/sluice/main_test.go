package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	agentacp "github.com/sluicehq/sluice/internal/agent/acptest"
)

// TestMain runs main itself when the test binary is started as sluice by
// TestStartupFailureExit: the process's exit code and stderr are then the
// command's, panics included.
func TestMain(m *testing.M) {
	agentacp.ServeIfAsked() // the test binary as an ACP agent behind sluice (acp_ask_test.go)
	if os.Getenv(baselineEnv) != "" {
		serveBaselineMCP()
		return
	}
	if args, ok := os.LookupEnv("SLUICE_TEST_MAIN_ARGS"); ok {
		os.Args = append([]string{"sluice"}, strings.Split(args, "\x1f")...)
		main()
		return
	}
	os.Exit(m.Run())
}

// A start-up failure is a one-line error and exit 1, not a panic (which
// exits 2 with a stack trace).
func TestStartupFailureExit(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, args := range [][]string{
		{"worker", "--data", t.TempDir(), "--store", "postgres://sluice@" + closed + "/sluice"},
		{"serve", "--data", t.TempDir(), "--addr", "127.0.0.1:0", "--queue", "nats://" + closed},
	} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "SLUICE_TEST_MAIN_ARGS="+strings.Join(args, "\x1f"), "SLUICE_LOG_LEVEL=error")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("%s: %v, want exit 1\nstderr:\n%s", args[0], err, stderr.String())
		}
		var errLines []string
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			if !strings.HasPrefix(line, "time=") { // a log line
				errLines = append(errLines, line)
			}
		}
		if len(errLines) != 1 || !strings.HasPrefix(errLines[0], "sluice: ") || !strings.Contains(errLines[0], closed) {
			t.Errorf("%s: stderr lines %q; want one 'sluice: ...' line naming %s", args[0], errLines, closed)
		}
	}
}
