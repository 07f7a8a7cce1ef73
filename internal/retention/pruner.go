package retention

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/store"
)

// Store is what the pruner needs of the store.
type Store interface {
	store.Retention
	store.Settings
	ListAccounts(ctx context.Context, p store.Page) ([]store.Account, string, error)
}

// Options are the configuration's retention section but for the ages.
type Options struct {
	Interval time.Duration // between passes
	Batch    int           // rows of a table per transaction (1..store.MaxPruneBatch)
	Pause    time.Duration // between batches
	Reclaim  int64         // bytes a pass gives back at most; 0: none
	Logger   *slog.Logger
	Clock    clock.Clock
	// DropSecrets deletes the vault entries (ids) of the A2A push
	// notification configs a pass deleted with their tasks; nil: the
	// pruner leaves them (a store without a vault).
	DropSecrets func(ctx context.Context, ids []string)
	// OnPass, when set, is told of every pass, background or asked for
	// (the gateway's metrics).
	OnPass func(Report)
}

// Report is what one pass did.
type Report struct {
	Started        time.Time `json:"started"`
	DurationMs     int64     `json:"duration_ms"`
	Policy         Policy    `json:"policy"`
	Accounts       int       `json:"accounts"` // accounts whose runs were looked at
	Runs           int64     `json:"runs"`
	Events         int64     `json:"events"`
	Checkpoints    int64     `json:"checkpoints"`
	PushConfigs    int64     `json:"push_configs"` // A2A push notification configs of the runs
	Audit          int64     `json:"audit"`
	Batches        int       `json:"batches"` // full batches, each followed by Pause
	ReclaimedBytes int64     `json:"reclaimed_bytes"`
	// Error is why the pass stopped early ("" when it did not).
	Error string `json:"error,omitempty"`
}

func (r Report) deleted() int64 { return r.Runs + r.Events + r.Checkpoints + r.PushConfigs + r.Audit }

// Pruner runs passes: in the background every Interval (Run), or at once
// (Prune, for the admin API). One pass at a time per process; passes of
// several gateways on one PostgreSQL store take turns batch by batch in
// the store (its serial lock), and delete each row once.
type Pruner struct {
	st     Store
	config Policy
	o      Options

	pass sync.Mutex // one pass at a time

	mu   sync.Mutex
	last *Report
}

// New is a pruner of st with the configuration's policy.
func New(st Store, config Policy, o Options) *Pruner {
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	o.Clock = cmp.Or[clock.Clock](o.Clock, clock.Real{})
	o.Batch = min(max(o.Batch, 1), store.MaxPruneBatch)
	o.Interval = cmp.Or(o.Interval, 5*time.Minute)
	return &Pruner{st: st, config: config, o: o}
}

// Policy is the policy in force: the configuration's with the stored ages
// over it.
func (p *Pruner) Policy(ctx context.Context) (Policy, error) {
	o, _, err := loadOverride(ctx, p.st)
	if err != nil {
		return p.config, err
	}
	return o.over(p.config), nil
}

// Run prunes every Interval until ctx ends. A failed pass is logged and
// the next one tries again.
func (p *Pruner) Run(ctx context.Context) {
	for p.o.Clock.Sleep(ctx, p.o.Interval) == nil {
		r, err := p.Prune(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			p.o.Logger.Warn("retention pass failed", "error", err, "deleted", r.deleted())
		case r.deleted() > 0:
			p.o.Logger.Info("retention pass", "runs", r.Runs, "events", r.Events, "checkpoints", r.Checkpoints,
				"audit", r.Audit, "batches", r.Batches, "reclaimed_bytes", r.ReclaimedBytes, "duration_ms", r.DurationMs)
		}
	}
}

// Prune runs one pass now and says what it deleted (what it did before an
// error, with the error).
func (p *Pruner) Prune(ctx context.Context) (Report, error) {
	p.pass.Lock()
	defer p.pass.Unlock()
	r := Report{Started: p.o.Clock.Now().UTC()}
	err := p.prune(ctx, &r)
	if err != nil {
		r.Error = err.Error()
	}
	r.DurationMs = p.o.Clock.Now().Sub(r.Started).Milliseconds()
	p.mu.Lock()
	p.last = &r
	p.mu.Unlock()
	if p.o.OnPass != nil {
		p.o.OnPass(r)
	}
	return r, err
}

// Last is this process's last pass, nil before the first.
func (p *Pruner) Last() *Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		return nil
	}
	r := *p.last
	return &r
}

func (p *Pruner) prune(ctx context.Context, r *Report) error {
	pol, err := p.Policy(ctx)
	if err != nil {
		return err
	}
	r.Policy = pol
	now := r.Started
	for cursor := ""; ; {
		accts, next, err := p.st.ListAccounts(ctx, store.Page{Cursor: cursor, Limit: store.MaxPageSize})
		if err != nil {
			return err
		}
		for _, a := range accts {
			cut, ok := pol.runsCutoff(now, retentionDays(a))
			if !ok {
				continue
			}
			r.Accounts++
			if err := p.pruneRuns(ctx, r, a.ID, cut); err != nil {
				return err
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if !pol.Audit.Forever() {
		before := now.Add(-time.Duration(pol.Audit))
		for more := true; more; {
			start := p.o.Clock.Now()
			n, err := p.st.PruneAudit(ctx, before, p.o.Batch)
			if err != nil {
				return err
			}
			r.Audit += n
			if more = n == int64(p.o.Batch); more {
				if err := p.batchDone(ctx, r, start); err != nil {
					return err
				}
			}
		}
	}
	if p.o.Reclaim > 0 && r.deleted() > 0 {
		return p.reclaim(ctx, r)
	}
	return nil
}

// ReclaimStep is the space one ReclaimSpace call gives back at most: on
// SQLite one write that holds the writer a few tens of milliseconds (a
// whole 64 MiB at once held it about 0.3 s; docs/performance.md).
const ReclaimStep = 4 << 20

// reclaim gives back up to Reclaim bytes, a step at a time with a pause
// between, until a step finds less than a step's worth free.
func (p *Pruner) reclaim(ctx context.Context, r *Report) error {
	for r.ReclaimedBytes < p.o.Reclaim {
		start := p.o.Clock.Now()
		n, err := p.st.ReclaimSpace(ctx, ReclaimStep)
		r.ReclaimedBytes += n
		if err != nil || n < ReclaimStep {
			return err
		}
		if err := p.batchDone(ctx, r, start); err != nil {
			return err
		}
	}
	return nil
}

// pruneRuns deletes the account's runs that finished before cut, a batch
// at a time, after their push notification configs and those configs'
// vault entries.
func (p *Pruner) pruneRuns(ctx context.Context, r *Report, accountID string, cut time.Time) error {
	for {
		start := p.o.Clock.Now()
		configs, err := p.st.PrunePushConfigs(ctx, accountID, cut, p.o.Batch)
		if err != nil {
			return err
		}
		r.PushConfigs += int64(len(configs))
		if p.o.DropSecrets != nil {
			var refs []string
			for _, c := range configs {
				for _, ref := range []string{c.TokenRef, c.CredentialsRef} {
					if ref != "" {
						refs = append(refs, ref)
					}
				}
			}
			if len(refs) > 0 {
				p.o.DropSecrets(ctx, refs)
			}
		}
		if len(configs) < p.o.Batch {
			break
		}
		if err := p.batchDone(ctx, r, start); err != nil {
			return err
		}
	}
	for {
		start := p.o.Clock.Now()
		got, err := p.st.PruneRuns(ctx, accountID, cut, p.o.Batch)
		if err != nil {
			return err
		}
		r.Runs += got.Runs
		r.Events += got.Events
		r.Checkpoints += got.Checkpoints
		if !got.More {
			return nil
		}
		if err := p.batchDone(ctx, r, start); err != nil {
			return err
		}
	}
}

// Rest is how many times a batch's own time the pruner waits after it (at
// least Pause): pruning then has at most a fifth of the database's writer,
// however slow a batch is on a loaded machine (docs/performance.md,
// "Retention": a fixed 20 ms after batches of 500 halved the writers'
// throughput).
const Rest = 4

// batchDone counts a full batch that began at start and leaves the
// database to the writers for Rest times its time, at least Pause.
func (p *Pruner) batchDone(ctx context.Context, r *Report, start time.Time) error {
	r.Batches++
	return p.o.Clock.Sleep(ctx, max(p.o.Pause, Rest*p.o.Clock.Now().Sub(start)))
}

// retentionDays is the account's limits.retention_days (0 when it has none
// or its limits cannot be read: the server's policy then applies).
func retentionDays(a store.Account) int {
	var l account.Limits
	if len(a.Limits) == 0 || json.Unmarshal(a.Limits, &l) != nil {
		return 0
	}
	return l.RetentionDays
}

// Update changes the stored policy (for every gateway of the store, from
// its next pass) and returns the policy in force.
func (p *Pruner) Update(ctx context.Context, c Change) (Policy, error) {
	o, err := saveOverride(ctx, p.st, c, p.o.Clock.Now())
	if err != nil {
		return Policy{}, err
	}
	return o.over(p.config), nil
}

// State is the retention as the admin API shows it.
type State struct {
	Policy     Policy `json:"policy"`     // in force
	Configured Policy `json:"configured"` // the configuration's
	// SetByAdmin names the ages an admin set over the configuration's
	// ("runs", "audit"), and UpdatedAt says when.
	SetByAdmin []string   `json:"set_by_admin"`
	UpdatedAt  *time.Time `json:"updated_at,omitempty"`
	Interval   string     `json:"interval"`
	Batch      int        `json:"batch"`
	Pause      string     `json:"pause"`
	Reclaim    int64      `json:"reclaim_bytes"`
	// LastPass is this gateway's last pass (absent before the first).
	LastPass *Report `json:"last_pass,omitempty"`
}

// State reads the policy in force and what set it.
func (p *Pruner) State(ctx context.Context) (State, error) {
	o, _, err := loadOverride(ctx, p.st)
	if err != nil {
		return State{}, err
	}
	s := State{Policy: o.over(p.config), Configured: p.config, SetByAdmin: []string{},
		Interval: p.o.Interval.String(), Batch: p.o.Batch, Pause: p.o.Pause.String(), Reclaim: p.o.Reclaim, LastPass: p.Last()}
	if o.Runs != nil {
		s.SetByAdmin = append(s.SetByAdmin, "runs")
	}
	if o.Audit != nil {
		s.SetByAdmin = append(s.SetByAdmin, "audit")
	}
	if !o.UpdatedAt.IsZero() {
		s.UpdatedAt = &o.UpdatedAt
	}
	return s, nil
}
