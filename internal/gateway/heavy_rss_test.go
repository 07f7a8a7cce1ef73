package gateway_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestHeavyUnauthenticatedFramesRSS is the figure of docs/performance.md:
// a real `sluice serve` takes 60 WebSocket connections that each send one
// 15 MiB frame without a handshake; its RSS must stay under 100 MB above
// idle (it went from 160 MB to 1.8 GB). Set SLUICE_TEST_HEAVY=1 to run it;
// SLUICE_TEST_BINARY runs another build (the code before the fix).
func TestHeavyUnauthenticatedFramesRSS(t *testing.T) {
	if os.Getenv("SLUICE_TEST_HEAVY") == "" {
		t.Skip("set SLUICE_TEST_HEAVY=1: builds and runs sluice serve, sends 900 MiB")
	}
	bin := os.Getenv("SLUICE_TEST_BINARY")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "sluice")
		build := exec.Command("go", "build", "-o", bin, "../../cmd/sluice")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build: %v\n%s", err, out)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sluice.yaml") // the bounds wide open: this measures the frame bound
	if err := os.WriteFile(cfg, []byte("session:\n  max_unauthenticated: 1000\n  max_unauthenticated_per_address: 1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--data", filepath.Join(dir, "data"), "--addr", addr}
	if os.Getenv("SLUICE_TEST_BINARY") == "" {
		args = append(args, "--config", cfg)
	}
	srv := exec.Command(bin, args...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	waitFor(t, 30*time.Second, "the server", func() bool {
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	time.Sleep(2 * time.Second)
	rss := func() int64 { return vmRSSKiB(t, srv.Process.Pid) }
	idle := rss()
	var peak atomic.Int64
	peak.Store(idle)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				if r := rss(); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	frame := append([]byte(`{"a2e":"1.0","type":"handshake/req","pad":"`), bytes.Repeat([]byte("x"), 15<<20-64)...)
	var wg sync.WaitGroup
	for range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			c, _, err := websocket.Dial(ctx, "ws://"+addr+"/api/v1/session", nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			c.SetReadLimit(1 << 20)
			go func() { _ = c.Write(ctx, websocket.MessageText, frame) }()
			_, _, _ = c.Read(ctx)
		}()
	}
	wg.Wait()
	time.Sleep(3 * time.Second)
	close(stop)
	<-sampled
	after := rss()
	t.Logf("RSS idle %.1f MB, peak %.1f MB (+%.1f), 3 s after %.1f MB (+%.1f)",
		mb(idle), mb(peak.Load()), mb(peak.Load()-idle), mb(after), mb(after-idle))
	if peak.Load()-idle > 100<<10 {
		t.Errorf("the server grew by %.1f MB, over the 100 MB goal", mb(peak.Load()-idle))
	}
}

func mb(kib int64) float64 { return float64(kib) / 1024 }

// vmRSSKiB is the resident set of a process, from /proc.
func vmRSSKiB(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var n int64
			_, _ = fmt.Sscanf(strings.TrimSpace(v), "%d", &n)
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
