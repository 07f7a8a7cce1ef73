package cli_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/cli"
)

// freeAddr is a loopback address nothing listens on (just now).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serve --debug-addr serves profiles and runtime metrics there, and only
// there: the public address has no /debug/ paths.
func TestServeDebugAddr(t *testing.T) {
	addr, debug := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	errf, err := os.CreateTemp(t.TempDir(), "stderr") // written by the server while the test runs
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	no := false
	done := make(chan int)
	go func() {
		done <- cli.Main(ctx, []string{"serve", "--data", t.TempDir(), "--addr", addr, "--debug-addr", debug},
			cli.Stdio{In: strings.NewReader(""), Out: io.Discard, Err: errf, ErrIsTerminal: &no})
	}()
	defer func() {
		cancel()
		<-done
	}()
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if code, _ := get("http://" + addr + "/ready"); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			logs, _ := os.ReadFile(errf.Name())
			t.Fatalf("the server did not start: %s", logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, body := get("http://" + debug + "/debug/vars"); code != 200 || !strings.Contains(body, `"/gc/heap/allocs:bytes"`) {
		t.Fatalf("debug vars: %d %.300s", code, body)
	}
	if code, body := get("http://" + debug + "/debug/pprof/goroutine?debug=1"); code != 200 || !strings.Contains(body, "goroutine profile") {
		t.Fatalf("goroutine profile: %d %.300s", code, body)
	}
	for _, p := range []string{"/debug/vars", "/debug/pprof/"} {
		if code, body := get("http://" + addr + p); code == 200 || strings.Contains(body, "goroutine") || strings.Contains(body, "memstats") {
			t.Fatalf("the public address serves %s: %d %.200s", p, code, body)
		}
	}
}

// The debug address is refused on the public address and off loopback,
// before anything starts.
func TestServeDebugAddrRefused(t *testing.T) {
	for _, c := range []struct{ addr, debug, want string }{
		{"127.0.0.1:18080", "127.0.0.1:18080", "public address"},
		{"127.0.0.1:18080", "0.0.0.0:6060", "not a loopback"},
	} {
		code, _, errOut := sluice(t, "", "serve", "--data", t.TempDir(), "--addr", c.addr, "--debug-addr", c.debug)
		if code != cli.ExitInvalid || !strings.Contains(errOut, c.want) {
			t.Errorf("--debug-addr %s with --addr %s: exit %d %s", c.debug, c.addr, code, errOut)
		}
	}
	t.Setenv("SLUICE_CONFIG", writeFile(t, "sluice.yaml", "debug_addr: 192.0.2.1:6060\n"))
	if code, _, errOut := sluice(t, "", "serve", "--data", t.TempDir(), "--addr", "127.0.0.1:0"); code != cli.ExitInvalid || !strings.Contains(errOut, "debug_addr") {
		t.Errorf("debug_addr in the file: exit %d %s", code, errOut)
	}
}
