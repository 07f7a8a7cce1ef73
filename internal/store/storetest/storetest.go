// Package storetest is the contract every store.Store implementation must
// meet: one test body run against SQLite now and PostgreSQL later. Each
// subtest opens a fresh, empty store.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

// Opener opens an empty store for one test; the test closes it (cleanups
// registered by Opener run after that).
type Opener func(t *testing.T) store.Store

// Run runs the whole contract.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Store)
	}{
		{"Accounts", testAccounts},
		{"AccountPaging", testAccountPaging},
		{"APIKeys", testAPIKeys},
		{"Credentials", testCredentials},
		{"CredentialRotation", testCredentialRotation},
		{"ExecutionCreateGet", testExecutionCreateGet},
		{"ExecutionIdempotency", testExecutionIdempotency},
		{"ExecutionScoping", testExecutionScoping},
		{"ExecutionStatusGuard", testExecutionStatusGuard},
		{"ExecutionPaging", testExecutionPaging},
		{"ExecutionUnfinished", testExecutionUnfinished},
		{"ExecutionBounds", testExecutionBounds},
		{"ExecutionKinds", testExecutionKinds}, {"ExecutionKindPaging", testExecutionKindPaging},
		{"UnfinishedByKind", testUnfinishedByKind}, {"ExecutionListsOfRuns", testExecutionListsOfRuns},
		{"Checkpoints", testCheckpoints},
		{"Events", testEvents},
		{"Audit", testAudit},
		{"PruneRuns", testPruneRuns}, {"PrunePushConfigs", testPrunePushConfigs}, {"PruneRunsConcurrent", testPruneRunsConcurrent}, {"StorageStats", testStorageStats},
		{"RateCounters", testRateCounters},
		{"KV", testKV},
		{"MCPServers", testMCPServers},
		{"PushConfigs", testPushConfigs},
		{"KnowledgeBases", testKnowledgeBases},
		{"DiscoveryUsage", testDiscoveryUsage}, {"DiscoveryUsageBounds", testDiscoveryUsageBounds},
		{"DiscoveryUsageDelete", testDiscoveryUsageDelete}, {"DiscoveryUsagePrune", testDiscoveryUsagePrune},
		{"DiscoveryUsagePerAccount", testDiscoveryUsagePerAccount},
		{"Agents", testAgents}, {"AgentBound", testAgentBound},
		{"Capabilities", testCapabilities}, {"CapabilityScoping", testCapabilityScoping}, {"CapabilityBounds", testCapabilityBounds},
		{"TakeRate", testTakeRate}, {"TakeRateConcurrent", testTakeRateConcurrent}, {"Slots", testSlots},
		{"Values", testValues}, {"ValuesBound", testValuesBound}, {"Settings", testSettings},
		{"ConcurrentWriters", testConcurrentWriters},
		{"ConcurrentIdempotency", testConcurrentIdempotency},
		{"MixedFailures", testMixedFailures},
		{"Close", testClose},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			closed := false
			t.Cleanup(func() {
				if !closed {
					s.Close()
				}
			})
			if tc.name == "Close" {
				closed = true
			}
			tc.fn(t, s)
		})
	}
}

var ctx = context.Background()

// wantKind fails t unless err is a *fault.Error of kind.
func wantKind(t *testing.T, err error, kind fault.Kind, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, kind)
	}
	if _, ok := fault.As(err); !ok {
		t.Fatalf("%s: %T %v is not a *fault.Error", what, err, err)
	}
	if got := fault.KindOf(err); got != kind {
		t.Fatalf("%s: kind %v (%v), want %v", what, got, err, kind)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// noSecret fails when an error's message, details or suggestions hold secret.
func noSecret(t *testing.T, err error, secret string) {
	t.Helper()
	if err == nil {
		return
	}
	fe := fault.From(err)
	all := fmt.Sprintf("%s %v %v", fe.Message, fe.Details, fe.Suggestions)
	if strings.Contains(all, secret) {
		t.Errorf("error shows a secret: %q", all)
	}
}

func mkAccount(t *testing.T, s store.Store, id string) store.Account {
	t.Helper()
	a, err := s.CreateAccount(ctx, store.Account{ID: id, Name: "Account " + id,
		Permissions: policy.Permissions{Operations: []string{"ApiCall"}, CapabilityLevel: policy.LevelBasic}})
	must(t, err)
	return a
}

func mkExecution(id, account string) store.Execution {
	return store.Execution{ID: id, AccountID: account, Digest: "sha256:doc-" + id, Document: []byte(`{"beginExecution":{}}`),
		Status: store.StatusQueued, BudgetMs: 30000}
}

func rawEq(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// parallel runs fn(0..n-1) on 16 goroutines (so group commit can batch them)
// and fails t on the first error.
func parallel(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		first atomic.Pointer[error]
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					first.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := first.Load(); err != nil {
		t.Fatal(*err)
	}
}
