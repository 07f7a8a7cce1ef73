// Package caprun runs published A2S capabilities for accounts: a run is
// resolved from the registry (NS/ID and a version constraint), checked against
// the account's grants and the server's audit policy, compiled for the
// account (its operation environment, the vault credentials it names) and run
// on the durable engine. Its record is an execution of the store of kind
// store.KindCapability whose document is a run descriptor
// (store.CapabilityRunPrefix), so runs share executions' ids, checkpoints and
// audit (the A2E list shows only A2E executions); a run that waits for the
// agent's answer (a prompt, a decision) is stored waiting with its checkpoint
// and goes on when Decide gives the answer, in this process or after a
// restart.
package caprun

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/checkpoint"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2s"
)

// Published is a registry entry resolved for a run.
type Published struct {
	Namespace, ID, Version, Checksum string
	Doc                              *a2s.Document
}

// Ref is NS/ID@version.
func (p *Published) Ref() string { return p.Namespace + "/" + p.ID + "@" + p.Version }

// Registry is what runs need of the capability registry.
type Registry interface {
	// Resolve finds the highest version of NS/ID that meets constraint ("":
	// the latest), parsed.
	Resolve(ctx context.Context, namespace, id, constraint string) (*Published, error)
	// Importer resolves the dependencies of doc.
	Importer(doc *a2s.Document) capability.Importer
	// Catalog is the latest version of every published capability, parsed
	// (for the session tools).
	Catalog(ctx context.Context) ([]*Published, error)
}

// Config wires a Service.
type Config struct {
	Store    store.Store
	Registry Registry
	// Env is the operation environment of an account (its grants, the vault,
	// the egress client).
	Env func(p *account.Principal) *op.Environment
	// Durable runs checkpointed runs; Nested runs imports.
	Durable *engine.Engine
	Nested  *engine.Engine
	Tokens  *capability.TokenCache
	Audit   policy.AuditPolicy
	Logger  *slog.Logger
}

// Service runs capabilities.
type Service struct {
	cfg     Config
	mu      sync.Mutex
	running map[string]context.CancelCauseFunc
}

// New makes a Service.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Tokens == nil {
		cfg.Tokens = capability.NewTokenCache()
	}
	return &Service{cfg: cfg, running: map[string]context.CancelCauseFunc{}}
}

// Request is one run.
type Request struct {
	// Ref is NS/ID (a ref without namespace is in "default").
	Ref         string
	Version     string // npm-style constraint; "" the latest
	Inputs      map[string]any
	Credentials map[string]map[string]string
	SessionID   string
	MaxTime     time.Duration
}

// descriptor is a run's stored document.
type descriptor struct {
	Run struct {
		Namespace  string `json:"namespace"`
		ID         string `json:"id"`
		Version    string `json:"version"`
		Checksum   string `json:"checksum"`
		Constraint string `json:"constraint,omitempty"`
	} `json:"a2s_run"`
	Credentials map[string]map[string]string `json:"credentials,omitempty"`
}

// SplitRef splits NS/ID; the ID is the last segment.
func SplitRef(ref string) (namespace, id string) {
	ref = strings.Trim(ref, "/")
	i := strings.LastIndexByte(ref, '/')
	if i < 0 {
		return "default", ref
	}
	return ref[:i], ref[i+1:]
}

// Run resolves, checks and runs a capability while the caller waits.
func (s *Service) Run(ctx context.Context, p *account.Principal, req Request) (*capability.Result, error) {
	ns, id := SplitRef(req.Ref)
	if id == "" {
		return nil, fault.Typed(fault.Invalid, fault.ValidationError, "id: name a capability as NAMESPACE/ID").WithDetail("field", "id")
	}
	pub, err := s.cfg.Registry.Resolve(ctx, ns, id, req.Version)
	if err != nil {
		return nil, err
	}
	if err := s.allowed(p, pub); err != nil {
		return nil, err
	}
	c, err := s.compile(p, pub, req.Credentials)
	if err != nil {
		return nil, err
	}
	if err := c.CheckInputs(req.Inputs); err != nil {
		return nil, err
	}
	var d descriptor
	d.Run.Namespace, d.Run.ID, d.Run.Version, d.Run.Checksum, d.Run.Constraint = pub.Namespace, pub.ID, pub.Version, pub.Checksum, req.Version
	d.Credentials = req.Credentials
	doc, _ := json.Marshal(d)
	in, _ := json.Marshal(orEmpty(req.Inputs))
	budget := req.MaxTime
	if budget <= 0 || budget > time.Duration(p.Limits.MaxExecutionTimeMs)*time.Millisecond && p.Limits.MaxExecutionTimeMs > 0 {
		budget = time.Duration(p.Limits.MaxExecutionTimeMs) * time.Millisecond
	}
	rec := store.Execution{ID: ids.New(ids.CapabilityRun), AccountID: p.ID, Kind: store.KindCapability, Digest: "a2s:" + pub.Checksum, Document: doc, Input: in,
		Status: store.StatusRunning, SessionID: req.SessionID, BudgetMs: budget.Milliseconds()}
	// The record comes first: checkpoints need it, and a run a crash stops is
	// found and resumed by Start.
	if _, _, err := s.cfg.Store.CreateExecution(ctx, rec); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.track(rec.ID, cancel)
	defer s.untrack(rec.ID)
	r := capability.Run(runCtx, s.cfg.Durable, c, capability.RunOptions{RunID: rec.ID, Account: p.ID, SessionID: req.SessionID,
		Inputs: orEmpty(req.Inputs), MaxTime: budget, MaxDataBytes: p.Limits.MaxDataBytes})
	if err := s.store(context.WithoutCancel(ctx), p, c, rec, r); err != nil {
		return nil, err
	}
	return r, nil
}

// Decide gives the agent's answer to a waiting run, which goes on.
func (s *Service) Decide(ctx context.Context, p *account.Principal, runID string, answer json.RawMessage) (*capability.Result, error) {
	rec, d, err := s.load(ctx, p, runID)
	if err != nil {
		return nil, err
	}
	if rec.Status != store.StatusWaiting {
		return nil, fault.New(fault.Conflict, "run %s is %s, not waiting for an answer", runID, rec.Status).WithDetail("status", string(rec.Status))
	}
	var prev capability.Result
	if err := json.Unmarshal(rec.Result, &prev); err != nil || prev.Pending == nil {
		return nil, fault.New(fault.Internal, "run %s waits but its pending question is unreadable", runID)
	}
	if err := capability.CheckAnswer(prev.Pending, answer); err != nil {
		return nil, err
	}
	pub, err := s.cfg.Registry.Resolve(ctx, d.Run.Namespace, d.Run.ID, d.Run.Version)
	if err != nil {
		return nil, err
	}
	if pub.Checksum != d.Run.Checksum {
		return nil, fault.New(fault.Conflict, "capability %s changed since run %s started", pub.Ref(), runID)
	}
	if err := s.allowed(p, pub); err != nil {
		return nil, err
	}
	c, err := s.compile(p, pub, d.Credentials)
	if err != nil {
		return nil, err
	}
	cp, err := (checkpoint.Stored{Store: s.cfg.Store}).Load(ctx, runID)
	if err != nil {
		return nil, err
	}
	// Another caller answering at the same time loses: the record moves to
	// running first, and only from waiting.
	if err := s.cfg.Store.UpdateExecution(ctx, p.ID, runID, store.ExecutionUpdate{Status: store.StatusRunning}); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.track(runID, cancel)
	defer s.untrack(runID)
	r := capability.Resume(runCtx, s.cfg.Durable, c, cp, answer, capability.RunOptions{Account: p.ID, SessionID: rec.SessionID, MaxDataBytes: p.Limits.MaxDataBytes})
	if err := s.store(context.WithoutCancel(ctx), p, c, rec, r); err != nil {
		return nil, err
	}
	return r, nil
}

// View is a stored run.
type View struct {
	RunID     string          `json:"run_id"`
	Status    store.Status    `json:"status"`
	Namespace string          `json:"namespace"`
	ID        string          `json:"id"`
	Version   string          `json:"version"`
	Checksum  string          `json:"checksum"`
	Result    json.RawMessage `json:"result,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
}

// Get returns a run of the account.
func (s *Service) Get(ctx context.Context, p *account.Principal, runID string) (*View, error) {
	rec, d, err := s.load(ctx, p, runID)
	if err != nil {
		return nil, err
	}
	return viewOf(rec, d), nil
}

// Cancel stops a running run (in this process) or a waiting one.
func (s *Service) Cancel(ctx context.Context, p *account.Principal, runID string) (*View, error) {
	rec, d, err := s.load(ctx, p, runID)
	if err != nil {
		return nil, err
	}
	if rec.Status.Final() {
		return viewOf(rec, d), nil
	}
	s.mu.Lock()
	cancel := s.running[runID]
	s.mu.Unlock()
	if cancel != nil {
		cancel(errCancelled)
	}
	err = s.cfg.Store.UpdateExecution(ctx, p.ID, runID, store.ExecutionUpdate{Status: store.StatusCancelled})
	if fe, ok := fault.As(err); err != nil && !(ok && fe.Kind == fault.Conflict) {
		return nil, err
	}
	rec, d, err = s.load(ctx, p, runID)
	if err != nil {
		return nil, err
	}
	return viewOf(rec, d), nil
}

var errCancelled = errors.New("the run was cancelled")

func viewOf(rec store.Execution, d *descriptor) *View {
	return &View{RunID: rec.ID, Status: rec.Status, Namespace: d.Run.Namespace, ID: d.Run.ID, Version: d.Run.Version,
		Checksum: d.Run.Checksum, Result: rec.Result, CreatedAt: rec.CreatedAt}
}

// load reads a run of the account; an execution that is not a run is
// NotFound here.
func (s *Service) load(ctx context.Context, p *account.Principal, runID string) (store.Execution, *descriptor, error) {
	rec, err := s.cfg.Store.GetExecution(ctx, p.ID, runID)
	if err != nil {
		return rec, nil, err
	}
	if rec.Kind != store.KindCapability {
		return rec, nil, fault.New(fault.NotFound, "run %q not found", runID)
	}
	d, err := parseDescriptor(rec.Document)
	if err != nil {
		return rec, nil, fault.New(fault.NotFound, "run %q not found", runID)
	}
	return rec, d, nil
}

func parseDescriptor(doc []byte) (*descriptor, error) {
	if !store.IsCapabilityRun(doc) {
		return nil, errors.New("not a capability run")
	}
	var d descriptor
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// allowed is the policy: the account's level and capability grants, the
// server's audit policy.
func (s *Service) allowed(p *account.Principal, pub *Published) error {
	run := policy.CapabilityRun{Ref: pub.Ref()}
	if perm := pub.Doc.Permissions; perm != nil {
		run.Level = perm.Level.Value
		for _, c := range perm.Capabilities {
			run.Capabilities = append(run.Capabilities, c.Value)
		}
	}
	if pub.Doc.Audit != nil {
		run.AuditStatus = pub.Doc.Audit.Status.Value
	}
	return p.Permissions.CheckCapabilityRun(run, s.cfg.Audit)
}

func (s *Service) compile(p *account.Principal, pub *Published, creds map[string]map[string]string) (*capability.Compiled, error) {
	for host, fields := range creds {
		for field, id := range fields {
			if !p.Permissions.AllowsCredential(id) {
				return nil, fault.Typed(fault.PermissionDenied, fault.PermissionError,
					"credentials.%s.%s: credential %q is not granted to this account", host, field, id).
					WithDetail("field", "credentials."+host+"."+field)
			}
		}
	}
	return capability.Compile(pub.Doc, capability.Options{Env: s.cfg.Env(p), Account: p.ID, Credentials: creds,
		Tokens: s.cfg.Tokens, Imports: s.cfg.Registry.Importer(pub.Doc), Nested: s.cfg.Nested})
}

// store records a run's outcome (a run cancelled meanwhile keeps that) and
// keeps outputs by their lifecycle.
func (s *Service) store(ctx context.Context, p *account.Principal, c *capability.Compiled, rec store.Execution, r *capability.Result) error {
	result, err := json.Marshal(r)
	if err != nil {
		return fault.New(fault.Internal, "the result of run %s could not be encoded", rec.ID).WithCause(err)
	}
	errs, _ := json.Marshal(r.Errors)
	status := store.Status(r.Status)
	err = s.cfg.Store.UpdateExecution(ctx, p.ID, rec.ID, store.ExecutionUpdate{Status: status, Result: result, Errors: errs})
	if fe, ok := fault.As(err); ok && fe.Kind == fault.Conflict {
		return nil
	}
	if err != nil {
		return err
	}
	if r.Status == engine.StatusSuccess || r.Status == engine.StatusPartial {
		s.keep(ctx, p, c, rec, r)
	}
	return nil
}

// keep stores outputs by lifecycle (RESOLUTIONS): persistent ones in the
// account's localStorage, session ones in the session's storage, under
// a2s/<NS>/<ID>/<output>; capability and task outputs live only in the run's
// record. A failure to keep is logged: the run's record has every output.
func (s *Service) keep(ctx context.Context, p *account.Principal, c *capability.Compiled, rec store.Execution, r *capability.Result) {
	st := s.cfg.Env(p).Deps().Storage
	d, err := parseDescriptor(rec.Document)
	if st == nil || err != nil {
		return
	}
	for _, out := range c.Doc.Outputs {
		v, ok := r.Outputs[out.Name]
		if !ok {
			continue
		}
		var area op.Area
		switch out.Lifecycle.Value {
		case a2s.LifecyclePersistent:
			area = op.Area{Storage: "localStorage", Account: p.ID}
		case a2s.LifecycleSession:
			if rec.SessionID == "" {
				continue
			}
			area = op.Area{Storage: "sessionStorage", Account: p.ID, SessionID: rec.SessionID}
		default:
			continue
		}
		key := "a2s/" + d.Run.Namespace + "/" + d.Run.ID + "/" + out.Name
		if err := st.Put(ctx, area, key, v); err != nil {
			s.cfg.Logger.Warn("capability output not kept", "run", rec.ID, "output", out.Name, "error", fault.From(err))
		}
	}
}

func (s *Service) track(id string, cancel context.CancelCauseFunc) {
	s.mu.Lock()
	s.running[id] = cancel
	s.mu.Unlock()
}

func (s *Service) untrack(id string) {
	s.mu.Lock()
	delete(s.running, id)
	s.mu.Unlock()
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Start resumes, in the background, the runs a stopped process left running
// (each from its last checkpoint, or from the start). principal gives the
// account of a run, with its grants now.
func (s *Service) Start(ctx context.Context, principal func(ctx context.Context, accountID string) (*account.Principal, error)) error {
	page := store.Page{Limit: 100}
	for {
		execs, next, err := s.cfg.Store.ListUnfinished(ctx, store.KindCapability, page)
		if err != nil {
			return err
		}
		for _, e := range execs {
			if e.Status != store.StatusRunning {
				continue
			}
			go s.resumeStopped(context.WithoutCancel(ctx), e, principal)
		}
		if next == "" {
			return nil
		}
		page.Cursor = next
	}
}

func (s *Service) resumeStopped(ctx context.Context, rec store.Execution, principal func(context.Context, string) (*account.Principal, error)) {
	fail := func(err error) {
		fe := fault.From(err)
		errs, _ := json.Marshal([]fault.Object{fe.Object()})
		_ = s.cfg.Store.UpdateExecution(ctx, rec.AccountID, rec.ID, store.ExecutionUpdate{Status: store.StatusFailed, Errors: errs})
		s.cfg.Logger.Warn("capability run not resumed", "run", rec.ID, "error", fe)
	}
	p, err := principal(ctx, rec.AccountID)
	if err != nil {
		fail(err)
		return
	}
	d, err := parseDescriptor(rec.Document)
	if err != nil {
		fail(fault.New(fault.Internal, "run %s has an unreadable descriptor", rec.ID))
		return
	}
	pub, err := s.cfg.Registry.Resolve(ctx, d.Run.Namespace, d.Run.ID, d.Run.Version)
	if err == nil && pub.Checksum != d.Run.Checksum {
		err = fault.New(fault.Conflict, "capability %s changed since run %s started", pub.Ref(), rec.ID)
	}
	if err == nil {
		err = s.allowed(p, pub)
	}
	if err != nil {
		fail(err)
		return
	}
	c, err := s.compile(p, pub, d.Credentials)
	if err != nil {
		fail(err)
		return
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.track(rec.ID, cancel)
	defer s.untrack(rec.ID)
	var r *capability.Result
	cp, err := (checkpoint.Stored{Store: s.cfg.Store}).Load(ctx, rec.ID)
	switch fe, _ := fault.As(err); {
	case err == nil:
		r = capability.Resume(runCtx, s.cfg.Durable, c, cp, nil, capability.RunOptions{Account: p.ID, SessionID: rec.SessionID, MaxDataBytes: p.Limits.MaxDataBytes})
	case fe != nil && fe.Kind == fault.NotFound:
		var in map[string]any
		_ = json.Unmarshal(rec.Input, &in)
		r = capability.Run(runCtx, s.cfg.Durable, c, capability.RunOptions{RunID: rec.ID, Account: p.ID, SessionID: rec.SessionID,
			Inputs: orEmpty(in), MaxTime: time.Duration(rec.BudgetMs) * time.Millisecond, MaxDataBytes: p.Limits.MaxDataBytes})
	default:
		s.cfg.Logger.Warn("capability run checkpoint unreadable", "run", rec.ID, "error", fault.From(err))
		return
	}
	if err := s.store(ctx, p, c, rec, r); err != nil {
		s.cfg.Logger.Warn("capability run result not stored", "run", rec.ID, "error", fault.From(err))
	}
}
