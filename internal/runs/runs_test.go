package runs

import (
	"context"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

// records is a store of execution records that remembers the last list
// query.
type records struct {
	store.Executions // unused methods panic
	mu               sync.Mutex
	lastList         store.ExecutionQuery
	lastAccount      string
}

func (r *records) ListExecutions(_ context.Context, accountID string, q store.ExecutionQuery) ([]store.Execution, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastAccount, r.lastList = accountID, q
	return nil, "", nil
}

func principal(id string, level string) *account.Principal {
	return &account.Principal{ID: id, Permissions: policy.Permissions{CapabilityLevel: level}}
}

// Whose runs a listing reads: the caller's, or for an admin another
// account's or every account's; a non-admin naming another account is
// refused before the store is read.
func TestListAccountPolicy(t *testing.T) {
	rec := &records{}
	s := New(Config{Store: rec})
	ctx := context.Background()
	alice, admin := principal("alice", policy.LevelBasic), principal("root", policy.LevelAdmin)
	for _, c := range []struct {
		p       *account.Principal
		account string
		want    string // the account read; "*": every account
		refused bool
	}{
		{alice, "", "alice", false},
		{alice, "alice", "alice", false},
		{alice, "bob", "", true},
		{alice, AllAccounts, "", true},
		{admin, "", "root", false},
		{admin, "bob", "bob", false},
		{admin, AllAccounts, "*", false},
	} {
		rec.lastAccount, rec.lastList = "", store.ExecutionQuery{}
		_, _, err := s.List(ctx, c.p, ListQuery{Account: c.account, Kinds: []string{store.KindA2E}})
		if c.refused {
			if fault.KindOf(err) != fault.PermissionDenied || rec.lastAccount != "" {
				t.Fatalf("%s naming %q: %v (read %q)", c.p.ID, c.account, err, rec.lastAccount)
			}
			continue
		}
		got := rec.lastAccount
		if rec.lastList.AllAccounts {
			got = "*"
		}
		if err != nil || got != c.want || len(rec.lastList.Kinds) != 1 {
			t.Fatalf("%s naming %q: %v, read %q %+v", c.p.ID, c.account, err, got, rec.lastList)
		}
	}
}
