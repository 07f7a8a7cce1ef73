// Package caprun runs published A2S capabilities for accounts: a run is
// resolved from the registry (NS/ID and a version constraint), checked against
// the account's grants and the server's audit policy, compiled for the
// account (its operation environment, the vault credentials it names) and run
// on the durable engine. Its record is an execution of the store of kind
// store.KindCapability whose document is a run descriptor
// (store.CapabilityRunPrefix), run by internal/execution's Manager as one of
// its kinds (Kind): it shares executions' ids, checkpoints, frames, audit,
// cancel and recovery (a run a crash stopped resumes after its last
// checkpoint). A run that waits for the agent's answer (a prompt, a
// decision) is stored waiting with its checkpoint and goes on when Decide
// gives the answer, in this process or after a restart.
package caprun

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/internal/execution"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2s"
	"github.com/sluicehq/sluice/protocol/e2a"
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
	// Runs stores, runs, resumes and cancels runs (internal/execution's
	// Manager); Nested runs imports.
	Runs   Runs
	Nested *engine.Engine
	Tokens *capability.TokenCache
	Audit  policy.AuditPolicy
	Logger *slog.Logger
}

// Runs is what a Service needs of the run service.
type Runs interface {
	RunNow(ctx context.Context, p *account.Principal, prog execution.Program, rec store.Execution, input any, onFrame func(*e2a.Response)) (*execution.Outcome, error)
	Answer(ctx context.Context, p *account.Principal, id string, answer json.RawMessage, onFrame func(*e2a.Response)) (*execution.Outcome, error)
	CancelRun(ctx context.Context, accountID, id string) (store.Execution, error)
}

// Service runs capabilities.
type Service struct {
	cfg Config
}

// New makes a Service.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Tokens == nil {
		cfg.Tokens = capability.NewTokenCache()
	}
	return &Service{cfg: cfg}
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
	// ClientID, when set, is the caller's key for this run: a second run
	// with it answers the first one's result (or state) and runs nothing.
	ClientID string
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
		SessionID: req.SessionID, BudgetMs: budget.Milliseconds(), ClientID: req.ClientID}
	out, err := s.cfg.Runs.RunNow(ctx, p, &program{s: s, p: p, c: c, inputs: orEmpty(req.Inputs)}, rec, orEmpty(req.Inputs), nil)
	if err != nil {
		return nil, err
	}
	if out.ResultJSON == nil && out.Record != nil {
		return earlier(*out.Record, rec)
	}
	return resultOf(out)
}

// earlier is the result of the run found by the client id of rec: that
// run's result, or its state while it has none. A client id of another
// kind of run, or of a run of another capability version, is a Conflict.
func earlier(found, rec store.Execution) (*capability.Result, error) {
	if found.Kind != store.KindCapability || found.Digest != rec.Digest {
		return nil, fault.New(fault.Conflict, "client_id %q names another run", rec.ClientID).
			WithDetail("field", "client_id").WithDetail("run_id", found.ID)
	}
	r := &capability.Result{RunID: found.ID, Status: engine.Status(found.Status), Outputs: map[string]any{},
		Tasks: map[string]any{}, Errors: []fault.Object{}}
	if len(found.Result) > 0 {
		if err := json.Unmarshal(found.Result, r); err != nil {
			return nil, fault.New(fault.Internal, "the result of run %s is unreadable", found.ID).WithCause(err)
		}
	}
	return r, nil
}

// Decide gives the agent's answer to a waiting run, which goes on.
func (s *Service) Decide(ctx context.Context, p *account.Principal, runID string, answer json.RawMessage) (*capability.Result, error) {
	if _, _, err := s.load(ctx, p, runID); err != nil {
		return nil, err
	}
	out, err := s.cfg.Runs.Answer(ctx, p, runID, answer, nil)
	if err != nil {
		return nil, err
	}
	return resultOf(out)
}

// resultOf is the capability result the run service stored.
func resultOf(out *execution.Outcome) (*capability.Result, error) {
	var r capability.Result
	if err := json.Unmarshal(out.ResultJSON, &r); err != nil {
		return nil, fault.New(fault.Internal, "the result of the run could not be read back").WithCause(err)
	}
	return &r, nil
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

// Cancel stops a run that has not finished, wherever it runs, and returns
// it; a finished run is returned as it is.
func (s *Service) Cancel(ctx context.Context, p *account.Principal, runID string) (*View, error) {
	rec, d, err := s.load(ctx, p, runID)
	if err != nil {
		return nil, err
	}
	if rec.Status.Final() {
		return viewOf(rec, d), nil
	}
	if _, err := s.cfg.Runs.CancelRun(ctx, p.ID, runID); err != nil && fault.KindOf(err) != fault.Conflict {
		return nil, err
	}
	rec, d, err = s.load(ctx, p, runID)
	if err != nil {
		return nil, err
	}
	return viewOf(rec, d), nil
}

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

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
