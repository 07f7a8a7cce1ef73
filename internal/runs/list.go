package runs

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// AllAccounts is ListQuery.Account's value for every account's runs.
const AllAccounts = "*"

// Summary is a run in a list: the same shape for every kind.
type Summary struct {
	RunID     string       `json:"run_id"`
	Kind      string       `json:"kind"` // store.KindA2E, KindCapability or KindAgentWorkflow
	Status    store.Status `json:"status"`
	AccountID string       `json:"account_id"`
	CreatedAt time.Time    `json:"created_at"`
	// UpdatedAt is when the record last changed status as far as it tells:
	// finished, else started, else created (a record keeps no other time).
	UpdatedAt  time.Time  `json:"updated_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

func summaryOf(e store.Execution) Summary {
	updated := e.CreatedAt
	switch {
	case e.FinishedAt != nil:
		updated = *e.FinishedAt
	case e.StartedAt != nil:
		updated = *e.StartedAt
	}
	return Summary{RunID: e.ID, Kind: e.Kind, Status: e.Status, AccountID: e.AccountID,
		CreatedAt: e.CreatedAt, UpdatedAt: updated, FinishedAt: e.FinishedAt}
}

// ListQuery filters and pages a listing of runs.
type ListQuery struct {
	Kinds  []string       // any of these (store kinds); empty: every kind
	Status []store.Status // any of these; empty: all
	// Account is whose runs: "" the caller's; another account's id, or
	// AllAccounts, only for an admin.
	Account string
	store.Page
}

// List pages through runs of every kind, newest first: the caller's, or for
// an admin another account's or every account's (q.Account). A non-admin
// naming another account is PermissionDenied, whether or not it exists.
func (s *Service) List(ctx context.Context, p *account.Principal, q ListQuery) ([]Summary, string, error) {
	sq := store.ExecutionQuery{Kinds: q.Kinds, Status: q.Status, Page: q.Page}
	owner := p.ID
	switch q.Account {
	case "", p.ID:
	case AllAccounts:
		if !p.Admin() {
			return nil, "", onlyAdmin()
		}
		sq.AllAccounts = true
	default:
		if !p.Admin() {
			return nil, "", onlyAdmin()
		}
		owner = q.Account
	}
	execs, next, err := s.store.ListExecutions(ctx, owner, sq)
	if err != nil {
		return nil, "", err
	}
	out := make([]Summary, len(execs))
	for i, e := range execs {
		out[i] = summaryOf(e)
	}
	return out, next, nil
}

func onlyAdmin() *fault.Error {
	return fault.Typed(fault.PermissionDenied, fault.PermissionError,
		"account: only an admin may list another account's runs").WithDetail("field", "account")
}
