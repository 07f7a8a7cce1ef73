package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func TestStatuses(t *testing.T) {
	final := map[store.Status]bool{store.StatusSuccess: true, store.StatusFailed: true, store.StatusPartial: true, store.StatusCancelled: true}
	for _, s := range store.Statuses {
		if !s.Valid() {
			t.Errorf("%s not valid", s)
		}
		if s.Final() != final[s] {
			t.Errorf("%s: Final() = %v", s, s.Final())
		}
	}
	for _, s := range []store.Status{"", "done", "SUCCESS"} {
		if s.Valid() {
			t.Errorf("%q valid", s)
		}
	}
}

func TestKeyActive(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Minute), now.Add(time.Minute)
	cases := []struct {
		k    store.APIKey
		want bool
	}{
		{store.APIKey{}, true},
		{store.APIKey{ExpiresAt: &future}, true},
		{store.APIKey{ExpiresAt: &now}, false},
		{store.APIKey{ExpiresAt: &past}, false},
		{store.APIKey{RevokedAt: &past}, false},
		{store.APIKey{RevokedAt: &past, ExpiresAt: &future}, false},
	}
	for i, c := range cases {
		if got := c.k.Active(now); got != c.want {
			t.Errorf("case %d: Active = %v", i, got)
		}
	}
}

func TestCheckIDAndPage(t *testing.T) {
	for _, id := range []string{"a", "acct_42", "exec-2026.01:x", strings.Repeat("a", store.MaxIDBytes)} {
		if err := store.CheckID("id", id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", ".x", "-x", "a b", "a/b", "é", strings.Repeat("a", store.MaxIDBytes+1)} {
		err := store.CheckID("account id", id)
		if fault.KindOf(err) != fault.Invalid || !strings.HasPrefix(err.Error(), "account id:") {
			t.Errorf("%q: %v", id, err)
		}
	}
	for limit, want := range map[int]int{0: store.DefaultPageSize, 1: 1, store.MaxPageSize: store.MaxPageSize} {
		if got, err := store.PageLimit(limit); err != nil || got != want {
			t.Errorf("limit %d: %d %v", limit, got, err)
		}
	}
}
