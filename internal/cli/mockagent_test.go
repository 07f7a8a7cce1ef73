package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/agent"
)

// lockedBuffer is a buffer the command and the test may use at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runSub runs one command (not registered under the root by its file) as
// `sluice <args>` and returns the exit code, stdout and stderr.
func runSub(ctx context.Context, newCmd func(Stdio) *cobra.Command, stdin string, out, errb io.Writer, args ...string) int {
	io := Stdio{In: strings.NewReader(stdin), Out: out, Err: errb}
	root := &cobra.Command{Use: "sluice", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(newCmd(io))
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(errb)
	err := root.ExecuteContext(ctx)
	var ee *exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(errb, "sluice:", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(errb, "sluice:", err)
	return ExitInvalid
}

func TestMockAgentCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- runSub(ctx, newMockAgentCmd, "", &out, &errb, "mock-agent", "--name", "echo", "--port", "0", "--delay", "1ms")
	}()
	var ready struct{ Name, URL string }
	deadline := time.Now().Add(10 * time.Second)
	for {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok {
			if err := json.Unmarshal([]byte(line), &ready); err != nil {
				t.Fatalf("first line %q: %v", line, err)
			}
			break
		}
		select {
		case code := <-done:
			t.Fatalf("exited %d before listening: %s", code, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the mock agent did not say where it listens")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if ready.Name != "echo" || !strings.HasPrefix(ready.URL, "http://127.0.0.1:") {
		t.Fatalf("%+v", ready)
	}
	resp, err := http.Post(ready.URL+"/", "application/json", strings.NewReader(`{"task_id":"t-1","input":{"q":"hi"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var ans map[string]any
	json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	output, _ := ans["output"].(map[string]any)
	if resp.StatusCode != 200 || ans["task_id"] != "t-1" || ans["status"] != "success" || ans["error"] != nil ||
		output["agent"] != "echo" || fmt.Sprint(output["echo"]) != "map[q:hi]" {
		t.Fatalf("%d %v", resp.StatusCode, ans)
	}
	resp, err = http.Get(ready.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("health: %d", resp.StatusCode)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Fatalf("exit %d after an interrupt: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "task received") || !strings.Contains(errb.String(), "t-1") {
		t.Fatalf("requests are not logged on stderr: %s", errb.String())
	}
}

// runMockAgent is what the command runs; here in error mode 5xx on a
// listener the test made.
func TestRunMockAgentErrorMode(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- runMockAgent(ctx, Stdio{Out: &out, Err: &errb}, ln, agent.MockOptions{Name: "flaky", ErrorMode: agent.MockError5xx, ErrorRate: 1})
	}()
	resp, err := http.Post("http://"+ln.Addr().String(), "application/json", strings.NewReader(`{"task_id":"t","input":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(b), "simulated server error") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestMockAgentFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--error-mode", "sometimes"},
		{"--error-mode", "5xx", "--error-rate", "1.5"},
		{"--port", "70000"},
		{"--name", "a.b"},
		{"--delay", "-1s"},
		{"extra-arg"},
	} {
		var out, errb bytes.Buffer
		code := runSub(context.Background(), newMockAgentCmd, "", &out, &errb, append([]string{"mock-agent", "--port", "0"}, args...)...)
		if code != ExitInvalid {
			t.Errorf("%v: exit %d (%s)", args, code, errb.String())
		}
	}
	// A port in use: exit 1.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	var out, errb bytes.Buffer
	if code := runSub(context.Background(), newMockAgentCmd, "", &out, &errb, "mock-agent", "--port", port); code != ExitFailed {
		t.Fatalf("a port in use: exit %d (%s)", code, errb.String())
	}
}
