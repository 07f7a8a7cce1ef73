package store

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// Discovery usage: the discovery index learns from use. When an account says
// that a search for some query was answered by an entry, each learnable word
// (an analyzed term) of the query is recorded for that entry, once per
// account; the index gives the entry those words. The store keeps the rows.

// DiscoveryKinds are the kinds of discovery entries (internal/discovery's
// Kind values), in the order the documentation lists them.
var DiscoveryKinds = []string{"operation", "api", "capability", "agent", "tool", "knowledge"}

// DiscoveryUsage is one word an account used to find an entry: a search
// for a query holding Term was answered by the entry (Kind, EntryID).
// (Kind, EntryID, Term, Account) is unique: an account counts once per word
// and entry, however often it says so, so one account cannot make a word
// weigh more than any other account's.
type DiscoveryUsage struct {
	Kind    string // discovery kind: operation, api, capability, agent, tool, knowledge
	EntryID string
	Term    string    // an analyzed (stemmed, lower-case) word, 1..64 bytes
	Account string    // account id
	At      time.Time // set by the store on insert (UTC now) and moved forward when the row is seen again
}

// DiscoveryUsageCount is how many accounts used Term to find an entry.
type DiscoveryUsageCount struct {
	Kind     string
	EntryID  string
	Term     string
	Accounts int
	Last     time.Time // the latest At among them
}

// DiscoveryUsageStore keeps the words accounts used to find entries.
type DiscoveryUsageStore interface {
	// AddDiscoveryUsage records rows (At is ignored and set to now); a row
	// already there has its At moved to now. It returns how many rows were
	// new. All rows are checked first: one bad row (CheckDiscoveryUsage)
	// fails the call with Invalid naming its index ("rows[3].term: ...") and
	// nothing is written. At most MaxDiscoveryUsageBatch rows. A row whose
	// account does not exist is NotFound, and nothing is written either.
	// An account that would keep more than MaxDiscoveryUsagePerAccount rows
	// is Conflict (UsageFull), and nothing is written.
	AddDiscoveryUsage(ctx context.Context, rows []DiscoveryUsage) (added int, err error)
	// DiscoveryUsageCounts returns each (kind, entry, term) with its number
	// of accounts, ordered by kind, entry id, term (byte-wise): of the entry
	// (kind, entryID), or of every entry when both are empty (one set and
	// not the other is Invalid).
	DiscoveryUsageCounts(ctx context.Context, kind, entryID string) ([]DiscoveryUsageCount, error)
	// DeleteDiscoveryUsage forgets usage: kind and entryID both set, of
	// that entry; both empty, all of it (one set and not the other is
	// Invalid). It returns how many rows went.
	DeleteDiscoveryUsage(ctx context.Context, kind, entryID string) (int, error)
	// PruneDiscoveryUsage deletes rows whose At is before the time and
	// returns how many went.
	PruneDiscoveryUsage(ctx context.Context, before time.Time) (int, error)
}

// UsageFull is the error of an account whose rows would pass
// MaxDiscoveryUsagePerAccount.
func UsageFull(account string) error {
	return fault.New(fault.Conflict, "account %q has taught discovery %d words of entries, the most an account keeps; they go %s",
		account, MaxDiscoveryUsagePerAccount, "after the retention (discovery.learning.retention), or when an admin forgets them").
		WithDetail("account", account)
}
