package catalog

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// Learning from use (docs/discovery.md): an account that tells the server
// which entry answered its query teaches the index the query's words for
// that entry, once per account and word. The words are kept in the store
// (store.DiscoveryUsageStore) and given to the index as the entry's usage
// field (discovery.Index.SetUsage).

// Learnt is what one piece of feedback taught.
type Learnt struct {
	Kind discovery.Kind `json:"kind"`
	ID   string         `json:"id"`
	// Words are the query's words the entry is now found with (analyzed:
	// "invoices" is "invoic"); empty when the query had none to teach.
	Words []string `json:"words"`
	// New counts the words this account had not taught for this entry
	// before.
	New int `json:"new"`
}

// EntryUsage is what use taught about one entry.
type EntryUsage struct {
	Kind  discovery.Kind `json:"kind"`
	ID    string         `json:"id"`
	Words map[string]int `json:"words"` // word -> accounts that found the entry with it
}

// CheckKind refuses a kind that is neither empty nor one of discovery's,
// naming path (the parameter that carried it).
func CheckKind(path string, kind discovery.Kind) error {
	if kind == "" || kind.Valid() {
		return nil
	}
	return fault.New(fault.Invalid, "%s: want one of operation, api, capability, agent, tool, knowledge, got %q", path, kind).
		WithDetail("path", path)
}

// syncEvery is how often feedback makes the catalog reload every entry's
// words from the store (what other gateways learnt, and the retention).
const syncEvery = 10 * time.Minute

func errLearningOff() error {
	return fault.New(fault.Unavailable, "learning from use is off (discovery.learning.enabled)")
}

// Learning reports whether the catalog learns from use.
func (s *Service) Learning() bool { return s.cfg.Usage != nil }

// Learn records that the entry (kind, id) answered query for p. The entry
// must be one p may see (else NotFound, as for an entry that does not
// exist; the admin may name any entry); kind may be empty when only one
// entry has the id. The query's learnable words
// (discovery.Index.LearnableTerms: its own words that the catalog or
// general English knows, never a token or an email address) are stored for
// p and the entry, and the index finds the entry with them from now on. An
// account past store.MaxDiscoveryUsagePerAccount words is Conflict.
func (s *Service) Learn(ctx context.Context, p *account.Principal, query string, kind discovery.Kind, id string) (Learnt, error) {
	if s.cfg.Usage == nil {
		return Learnt{}, errLearningOff()
	}
	e, err := s.entryFor(p, kind, id)
	if err != nil {
		return Learnt{}, err
	}
	out := Learnt{Kind: e.Kind, ID: e.ID, Words: s.ix.LearnableTerms(query)}
	if len(out.Words) == 0 {
		out.Words = []string{}
		return out, nil
	}
	rows := make([]store.DiscoveryUsage, len(out.Words))
	for i, w := range out.Words {
		rows[i] = store.DiscoveryUsage{Kind: string(e.Kind), EntryID: e.ID, Term: w, Account: p.ID}
	}
	if out.New, err = s.cfg.Usage.AddDiscoveryUsage(ctx, rows); err != nil {
		return Learnt{}, err
	}
	if out.New > 0 {
		if err := s.reloadUsage(ctx, e.Key()); err != nil {
			return Learnt{}, err
		}
	}
	s.syncIfDue()
	return out, nil
}

// entryFor finds the entry p names by kind (optional) and id, among those
// p may see; the admin may name any (to teach the catalog examples).
func (s *Service) entryFor(p *account.Principal, kind discovery.Kind, id string) (discovery.Entry, error) {
	if err := CheckKind("params.kind", kind); err != nil {
		return discovery.Entry{}, err
	}
	filter := s.Filter(p)
	if p.Admin() {
		filter = func(discovery.Entry) bool { return true }
	}
	var found []discovery.Entry
	for _, k := range discovery.Kinds {
		if kind != "" && k != kind {
			continue
		}
		if e, ok := s.ix.Get(discovery.Key{Kind: k, ID: id}); ok && filter(e) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return discovery.Entry{}, fault.New(fault.NotFound, "params.id: no entry %q", id).WithDetail("path", "params.id")
	case 1:
		return found[0], nil
	}
	return discovery.Entry{}, fault.New(fault.Invalid, "params.id: %d entries are %q; say which with params.kind", len(found), id).
		WithDetail("path", "params.kind")
}

// Usage lists what use taught: every entry with learnt words, or those of
// that kind, or with that id (of that kind). For an administrator: the
// words are those of every account's queries.
func (s *Service) Usage(kind discovery.Kind, id string) []EntryUsage {
	out := []EntryUsage{}
	for _, k := range s.ix.UsageKeys() {
		if (id == "" || k.ID == id) && (kind == "" || k.Kind == kind) {
			if u := s.ix.UsageOf(k); len(u) > 0 {
				out = append(out, EntryUsage{Kind: k.Kind, ID: k.ID, Words: u})
			}
		}
	}
	return out
}

// Forget deletes what use taught about the entry (kind, id), or about
// every entry when both are empty, and returns how many stored words of
// accounts went.
func (s *Service) Forget(ctx context.Context, kind discovery.Kind, id string) (int, error) {
	if s.cfg.Usage == nil {
		return 0, errLearningOff()
	}
	if (kind == "") != (id == "") {
		return 0, fault.New(fault.Invalid, "params: kind and id go together (both to forget one entry, neither to forget all)").
			WithDetail("path", "params.kind")
	}
	if err := CheckKind("params.kind", kind); err != nil {
		return 0, err
	}
	n, err := s.cfg.Usage.DeleteDiscoveryUsage(ctx, string(kind), id)
	if err != nil {
		return 0, err
	}
	if id == "" {
		return n, s.SyncUsage(ctx)
	}
	return n, s.reloadUsage(ctx, discovery.Key{Kind: kind, ID: id})
}

// SyncUsage drops the words past the retention and gives the index what
// the store holds, forgetting what it no longer holds: at start, after
// forgetting all, and every syncEvery with feedback (with several gateways
// on one database, the words accounts taught through the others). Entries
// whose words did not change are not written again.
func (s *Service) SyncUsage(ctx context.Context) error {
	if s.cfg.Usage == nil {
		return nil
	}
	// Held from the read on: a reload of one entry after feedback that
	// came meanwhile then applies after this, with the newer counts.
	s.usageMu.Lock()
	defer s.usageMu.Unlock()
	if s.cfg.UsageRetention > 0 {
		if _, err := s.cfg.Usage.PruneDiscoveryUsage(ctx, time.Now().Add(-s.cfg.UsageRetention)); err != nil {
			return err
		}
	}
	counts, err := s.cfg.Usage.DiscoveryUsageCounts(ctx, "", "")
	if err != nil {
		return err
	}
	usage := map[discovery.Key]discovery.Usage{}
	for _, c := range counts {
		k := discovery.Key{Kind: discovery.Kind(c.Kind), ID: c.EntryID}
		if usage[k] == nil {
			usage[k] = discovery.Usage{}
		}
		usage[k][c.Term] = c.Accounts
	}
	s.mu.Lock()
	s.lastSync = time.Now()
	s.mu.Unlock()
	for _, k := range s.ix.UsageKeys() {
		if usage[k] == nil {
			s.ix.SetUsage(k, nil)
		}
	}
	for k, u := range usage {
		s.ix.SetUsage(k, u)
	}
	return nil
}

// reloadUsage gives the index what the store holds about one entry.
func (s *Service) reloadUsage(ctx context.Context, k discovery.Key) error {
	s.usageMu.Lock()
	defer s.usageMu.Unlock()
	counts, err := s.cfg.Usage.DiscoveryUsageCounts(ctx, string(k.Kind), k.ID)
	if err != nil {
		return err
	}
	u := discovery.Usage{}
	for _, c := range counts {
		u[c.Term] = c.Accounts
	}
	s.ix.SetUsage(k, u)
	return nil
}

// syncIfDue reloads, at most every syncEvery and without holding up the
// caller, every entry's words from the store (SyncUsage).
func (s *Service) syncIfDue() {
	s.mu.Lock()
	due := time.Since(s.lastSync) >= syncEvery
	if due {
		s.lastSync = time.Now()
	}
	s.mu.Unlock()
	if !due {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.SyncUsage(ctx); err != nil {
			s.cfg.Logger.Warn("discovery: reloading what use taught", "error", err)
		}
	}()
}
