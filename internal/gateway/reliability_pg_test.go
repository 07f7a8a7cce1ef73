package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/vault"
)

// TestKill9OneOfTwoGateways runs two server processes on one PostgreSQL (each
// with a data directory of its own holding copies of the same key files, as
// two machines would), submits 300 asynchronous executions spread over both,
// kills one with SIGKILL midway, and checks that every execution ends exactly
// once with the right result: the survivor takes over the leases of the dead
// one when they run out. (Shared helpers: killtest_helpers_test.go.)
func TestKill9OneOfTwoGateways(t *testing.T) {
	skipUnlessHeavy(t)
	dsn := pgtest.NewDatabase(t)
	t.Setenv("SLUICE_STORE", dsn) // the children read it as store.dsn
	dirA, dirB := t.TempDir(), t.TempDir()
	admin := "admin-" + strings.Repeat("k", 40)
	cmdA, urlA := startChild(t, dirA, admin)
	defer func() { _ = cmdA.Process.Kill(); _ = cmdA.Wait() }()
	for _, name := range []string{vault.MasterKeyFile, policy.KeyPepperFile} {
		b, err := os.ReadFile(filepath.Join(dirA, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirB, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmdB, urlB := startChild(t, dirB, admin)
	defer func() { _ = cmdB.Process.Kill(); _ = cmdB.Wait() }()

	key := killTestAccount(t, urlA, admin, "reliability-pg", 400)
	ca, cb := client.New(urlA, key, nil), client.New(urlB, key, nil)
	// Half through each gateway (even ones through A).
	accepted := submitKillTestRuns(t, []*client.Client{ca, cb}, 300, "relpg", 300, 1200)
	// Kill A once some have ended and many have not.
	waitSomeEnded(t, cb, accepted[:60])
	_ = cmdA.Process.Signal(syscall.SIGKILL)
	_, _ = cmdA.Process.Wait()
	killedAt := time.Now()
	open := 0
	for _, r := range accepted {
		if e, err := cb.Execution(context.Background(), r.id); err != nil || !e.Final() {
			open++
		}
	}

	checkAllEndOnce(t, urlB, key, accepted, "on the survivor")
	t.Logf("%d executions accepted (half through each gateway); one gateway killed with %d unfinished; all ended exactly once with the right result on the survivor, the last %v after the kill",
		len(accepted), open, time.Since(killedAt).Round(time.Second))
}
