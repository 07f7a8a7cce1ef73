package cli

import (
	"encoding/json"
	"time"

	"bytes"
	"context"
	"github.com/sluicehq/sluice/internal/config"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	old := readBuildInfo
	t.Cleanup(func() { readBuildInfo = old })
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"},
			{Key: "vcs.time", Value: "2026-11-28T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}, true
	}
	want := "sluice v1.4.0 (commit 0123456789ab-dirty, built 2026-11-28T10:00:00Z, go1.99.1, "
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errb bytes.Buffer
		no := false
		code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, ErrIsTerminal: &no})
		if code != 0 || !strings.HasPrefix(out.String(), want) || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%v: %d %q, want prefix %q", args, code, out.String(), want)
		}
	}

	readBuildInfo = func() (*debug.BuildInfo, bool) { return nil, false }
	if got := currentBuild().String(); !strings.HasPrefix(got, "sluice dev (commit unknown, built unknown, go") {
		t.Errorf("without build info: %q", got)
	}
	Version = "v9.9.9"
	t.Cleanup(func() { Version = "" })
	if got := currentBuild().Version; got != "v9.9.9" {
		t.Errorf("ldflags version: %q", got)
	}
}

// TestServeWorkerHelp: the defaults in --help are printed once and true, and
// no usage text turns into a value name.
func TestServeWorkerHelp(t *testing.T) {
	for _, c := range []string{"serve", "worker"} {
		var out, errb bytes.Buffer
		no := false
		code := Main(context.Background(), []string{c, "--help"}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, ErrIsTerminal: &no})
		help := out.String()
		if code != 0 {
			t.Fatalf("%s --help: %d %s", c, code, errb.String())
		}
		for _, line := range strings.Split(help, "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s --help: two defaults on %q", c, line)
			}
		}
		if !strings.Contains(help, "--queue URL ") || strings.Contains(help, "--queue sluice") {
			t.Errorf("%s --help: --queue's value name:\n%s", c, help)
		}
		if !strings.Contains(help, "--agent-workers int") || !strings.Contains(help, "(default 16)") {
			t.Errorf("%s --help: --agent-workers:\n%s", c, help)
		}
		if strings.Contains(help, "--workers ") {
			t.Errorf("%s --help shows the deprecated --workers:\n%s", c, help)
		}
	}
}

// TestMockAgentDefaultPort: without --port the mock agent takes a free port
// and prints it, so two of them (or one next to a server on 8080) start.
func TestMockAgentDefaultPort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var urls []string
	for range 2 {
		var out, errb lockedBuffer
		done := make(chan int, 1)
		go func() { done <- runSub(ctx, newMockAgentCmd, "", &out, &errb, "mock-agent") }()
		for !strings.Contains(out.String(), "\n") {
			select {
			case code := <-done:
				t.Fatalf("mock-agent exited %d: %s", code, errb.String())
			case <-time.After(5 * time.Millisecond):
			}
		}
		var ready struct{ URL string }
		if err := json.Unmarshal([]byte(out.String()), &ready); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, ready.URL)
	}
	if urls[0] == urls[1] || strings.HasSuffix(urls[0], ":8080") || strings.HasSuffix(urls[1], ":8080") {
		t.Fatalf("urls %v", urls)
	}
}

// TestAgentWorkersFlag: --agent-workers sets agents.workers, the deprecated
// --workers too, and a bad value names the flag.
func TestAgentWorkersFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
		err  string
	}{
		{nil, 16, ""},
		{[]string{"--agent-workers", "3"}, 3, ""},
		{[]string{"--workers", "0"}, 0, ""},
		{[]string{"--agent-workers", "2000"}, 16, "--agent-workers: want 0 to 1024, got 2000"},
	} {
		var f serveFlags
		cmd := newServeCmd(Stdio{Err: &bytes.Buffer{}})
		cmd.Flags().SetOutput(&bytes.Buffer{})
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		f.workers, _ = cmd.Flags().GetInt("agent-workers")
		cfg := config.Defaults()
		err := applyQueueFlags(cmd, &cfg, "", f.workers)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%v: %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || cfg.Agents.Workers != tc.want {
			t.Errorf("%v: %v, workers %d, want %d", tc.args, err, cfg.Agents.Workers, tc.want)
		}
	}
}
