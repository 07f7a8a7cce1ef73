package gateway_test

import (
	"strings"
	"syscall"
	"testing"

	"github.com/sluicehq/sluice/client"
)

// TestKill9LosesNothing submits 200 asynchronous executions with Waits, kills
// the server with SIGKILL midway, restarts it on the same data directory and
// checks that every accepted execution ends, once, with the right result.
// (Shared helpers: killtest_helpers_test.go.)
func TestKill9LosesNothing(t *testing.T) {
	skipUnlessHeavy(t)
	dir := t.TempDir()
	admin := "admin-" + strings.Repeat("k", 40)
	cmd, url := startChild(t, dir, admin)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	key := killTestAccount(t, url, admin, "reliability", 200)

	c := client.New(url, key, nil)
	accepted := submitKillTestRuns(t, []*client.Client{c}, 200, "rel", 100, 900)
	// Kill once some have ended and many have not.
	done := waitSomeEnded(t, c, accepted[:50])
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_, _ = cmd.Process.Wait()

	cmd2, url2 := startChild(t, dir, admin)
	defer func() { _ = cmd2.Process.Kill(); _ = cmd2.Wait() }()
	checkAllEndOnce(t, url2, key, accepted, "after the restart")
	t.Logf("%d executions accepted; killed with %d of the first 50 ended; all ended once with the right result after the restart", len(accepted), done)
}
