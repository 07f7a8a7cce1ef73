package gateway

import (
	"bytes"
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ratelimit"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// The adapters below join packages that were built apart: each speaks its own
// small interface, and the store implements the server's whole state.

// vaultRecords is vault.Records over the store's credentials.
type vaultRecords struct{ st store.Credentials }

func (v vaultRecords) Put(ctx context.Context, r vault.Record) error {
	_, err := v.st.PutCredential(ctx, store.Credential{ID: r.ID, Type: r.Type, Description: r.Description, Hosts: r.Hosts,
		MasterKeyID: r.KeyID, Nonce: r.Nonce, Ciphertext: r.Ciphertext, CreatedAt: r.Created, UpdatedAt: r.Updated})
	return err
}

func (v vaultRecords) Get(ctx context.Context, id string) (vault.Record, bool, error) {
	c, err := v.st.GetCredential(ctx, id)
	if fe, ok := fault.As(err); ok && fe.Kind == fault.NotFound {
		return vault.Record{}, false, nil
	}
	if err != nil {
		return vault.Record{}, false, err
	}
	return recordOf(c), true, nil
}

func recordOf(c store.Credential) vault.Record {
	return vault.Record{ID: c.ID, Type: c.Type, Description: c.Description, Hosts: c.Hosts, KeyID: c.MasterKeyID,
		Nonce: c.Nonce, Ciphertext: c.Ciphertext, Created: c.CreatedAt, Updated: c.UpdatedAt}
}

func (v vaultRecords) List(ctx context.Context) ([]vault.Record, error) {
	all, err := v.st.AllCredentials(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]vault.Record, len(all))
	for i, c := range all {
		out[i] = recordOf(c)
	}
	return out, nil
}

func (v vaultRecords) Delete(ctx context.Context, id string) (bool, error) {
	err := v.st.DeleteCredential(ctx, id)
	if fe, ok := fault.As(err); ok && fe.Kind == fault.NotFound {
		return false, nil
	}
	return err == nil, err
}

// Reseal applies the swaps whose record still has its old nonce, in one
// transaction of the store (which checks each record is unchanged since read).
func (v vaultRecords) Reseal(ctx context.Context, swaps []vault.Swap) (int, error) {
	all, err := v.st.AllCredentials(ctx)
	if err != nil {
		return 0, err
	}
	current := make(map[string]store.Credential, len(all))
	for _, c := range all {
		current[c.ID] = c
	}
	var batch []store.Credential
	for _, s := range swaps {
		c, ok := current[s.ID]
		if !ok || !bytes.Equal(c.Nonce, s.OldNonce) {
			continue
		}
		c.Nonce, c.Ciphertext, c.MasterKeyID = s.New.Nonce, s.New.Ciphertext, s.New.KeyID
		batch = append(batch, c)
	}
	if len(batch) == 0 {
		return 0, nil
	}
	if err := v.st.RotateCredentials(ctx, batch); err != nil {
		return 0, err
	}
	return len(batch), nil
}

// ratePersister is ratelimit.Persister over the store's rate counters.
type ratePersister struct {
	st    store.RateCounters
	clock interface{ Now() time.Time }
}

func (r ratePersister) SaveCounters(ctx context.Context, cs []ratelimit.Counter) error {
	out := make([]store.RateCounter, len(cs))
	for i, c := range cs {
		out[i] = store.RateCounter{AccountID: c.Account, Window: c.Window.String(), Start: c.Start,
			End: c.Start.Add(c.Window.Period()), Count: c.Count}
	}
	return r.st.SaveRateCounters(ctx, r.clock.Now(), out)
}

func (r ratePersister) LoadCounters(ctx context.Context) ([]ratelimit.Counter, error) {
	cs, err := r.st.LoadRateCounters(ctx, r.clock.Now())
	if err != nil {
		return nil, err
	}
	out := make([]ratelimit.Counter, 0, len(cs))
	for _, c := range cs {
		w, ok := ratelimit.ParseWindow(c.Window)
		if !ok {
			continue
		}
		out = append(out, ratelimit.Counter{Account: c.AccountID, Window: w, Start: c.Start, Count: c.Count})
	}
	return out, nil
}

// sharedRateLimits is ratelimit.Shared over the store's shared limits, so
// the rate limiter of every gateway sharing the store counts in it (see
// internal/ratelimit's shared mode).
type sharedRateLimits struct{ limits store.SharedLimits }

func (s sharedRateLimits) Count(ctx context.Context, c ratelimit.SharedCount) (ratelimit.SharedCounted, error) {
	t := store.RateTake{AccountID: c.Account, At: c.At, N: c.N, Windows: make([]store.RateWindow, len(c.Windows))}
	for i, w := range c.Windows {
		t.Windows[i] = store.RateWindow{Kind: w.Kind, Start: w.Start, End: w.End, Limit: w.Limit}
	}
	if c.BucketKind != "" {
		t.Bucket = &store.RateBucket{Kind: c.BucketKind, Interval: c.Interval, Burst: c.Burst}
	}
	r, err := s.limits.TakeRate(ctx, t)
	if err != nil {
		return ratelimit.SharedCounted{}, err
	}
	return ratelimit.SharedCounted{Taken: r.Taken, Counts: r.Counts, TAT: r.TAT}, nil
}

func (s sharedRateLimits) TakeSlot(ctx context.Context, account, id string, max int, at, expires time.Time) (int, bool, error) {
	return s.limits.TakeSlot(ctx, store.SlotTake{AccountID: account, SlotID: id, Max: max, At: at, Expires: expires})
}

func (s sharedRateLimits) RenewSlots(ctx context.Context, ids []string, expires time.Time) error {
	return s.limits.RenewSlots(ctx, ids, expires)
}

func (s sharedRateLimits) ReleaseSlot(ctx context.Context, id string) error {
	return s.limits.ReleaseSlot(ctx, id)
}

func (s sharedRateLimits) CountSlots(ctx context.Context, account string, at time.Time) (int, error) {
	return s.limits.CountSlots(ctx, account, at)
}

// rateLimits are an account's rate limits for the limiter.
func rateLimits(l account.Limits) ratelimit.Limits {
	return ratelimit.Limits{
		RequestsPerMinute: l.RequestsPerMinute, RequestsPerHour: l.RequestsPerHour, RequestsPerDay: l.RequestsPerDay,
		APICallsPerMinute: l.APICallsPerMinute, APICallsPerHour: l.APICallsPerHour,
		MaxConcurrentExecutions: l.MaxConcurrentExecutions,
	}
}

// defaultRateLimits are the configured limits of accounts that set none.
func defaultRateLimits(r config.RateLimits) ratelimit.Limits {
	return ratelimit.Limits{
		RequestsPerMinute: r.RequestsPerMinute, RequestsPerHour: r.RequestsPerHour, RequestsPerDay: r.RequestsPerDay,
		APICallsPerMinute: r.APICallsPerMinute, APICallsPerHour: r.APICallsPerHour,
		MaxConcurrentExecutions: r.MaxConcurrentExecutions,
	}
}

// limiter is the gateway's Limiter over ratelimit.Limiter.
type limiter struct{ lim *ratelimit.Limiter }

func (l limiter) AllowRequest(p *account.Principal) LimitStatus {
	d := l.lim.Allow(p.ID, rateLimits(p.Limits))
	st := LimitStatus{Limit: d.Limit, Remaining: d.Remaining, Reset: d.Reset, Allowed: d.Allowed,
		RetryAfter: d.RetryAfter, Window: d.Window.String()}
	if !d.Allowed {
		st.Message = d.Message()
	}
	return st
}

func (l limiter) Status(p *account.Principal) any {
	return l.lim.Status(p.ID, rateLimits(p.Limits)).Body(p.ID)
}

// slots takes a concurrent-execution slot of the limiter.
func (l limiter) slots(p *account.Principal) (func(), error) {
	release, d := l.lim.Acquire(p.ID, rateLimits(p.Limits))
	if !d.Allowed {
		return nil, fault.New(fault.RateLimited, "too many executions at once: the limit is %d", d.Limit).
			WithDetail("max_concurrent_executions", d.Limit).Retry(time.Second).
			WithSuggestions("Wait for running executions to finish, or run this one with async=true")
	}
	return release, nil
}

// apiMeter is op.Meter: an account's API-call limits, by account id.
type apiMeter struct {
	lim      *ratelimit.Limiter
	accounts *account.Service
}

func (m apiMeter) AllowCall(ctx context.Context, accountID string) error {
	p, err := m.accounts.Principal(ctx, accountID)
	if err != nil {
		return err
	}
	return m.lim.AllowAPICall(accountID, rateLimits(p.Limits)).Err()
}

// auditSink turns dispatcher and operation records into store records for
// the asynchronous writer.
type auditSink struct {
	add func(store.AuditRecord)
}

func (a auditSink) Record(r AuditRecord) {
	a.add(store.AuditRecord{Time: r.Time, RequestID: r.RequestID, AccountID: r.AccountID, Method: r.Method,
		Operation: r.Operation, Decision: r.Decision, LatencyMs: r.Latency.Milliseconds(), Status: r.Status, ErrorCode: r.ErrorCode})
}

// operation records one finished or failed workflow operation.
func (a auditSink) operation(accountID, executionID string, ev engine.Event) {
	status, code := "succeeded", ""
	if ev.Kind == engine.EventFailed {
		status = "failed"
		if ev.Error != nil {
			code = ev.Error.Type
		}
	}
	a.add(store.AuditRecord{Time: ev.Time, RequestID: executionID, AccountID: accountID, Method: e2a.MethodWorkflowExecute,
		Operation: ev.OperationID + ":" + ev.Operation, Decision: DecisionAllow, LatencyMs: ev.Duration, Status: status, ErrorCode: code})
}
