package gateway

import (
	"context"
	"log/slog"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/keyguard"
	"github.com/sluicehq/sluice/internal/vault"
)

// openKeys loads the key pepper and the vault's master keys of cfg and
// returns the pepper and the vault over st. With a shared store (gateways
// and workers on one PostgreSQL) the keys must be the ones claimed in it
// (docs/scale-out.md): a process with others is refused, instead of sealing
// what the rest cannot open.
func openKeys(ctx context.Context, cfg *config.Config, st store.Store, shared bool, clk clock.Clock, log *slog.Logger) (policy.Pepper, *vault.Sealed, error) {
	pepper, err := policy.LoadPepper(cfg.DataDir, nil)
	if err != nil {
		return policy.Pepper{}, nil, err
	}
	ring, err := vault.LoadKeyring(vault.KeyringSource{DataDir: cfg.DataDir})
	if err != nil {
		return policy.Pepper{}, nil, err
	}
	if shared {
		if err := keyguard.Check(ctx, st, ring, pepper, clk, log); err != nil {
			return policy.Pepper{}, nil, err
		}
	}
	return pepper, vault.NewSealed(vaultRecords{st}, ring, vault.Options{Clock: clk, Logger: log}), nil
}

// newAgents is the agent registry over st and this process's invoker.
// acp is the allowlist of ACP agent programs (config agents.acp).
func newAgents(st store.Store, sealed *vault.Sealed, pol egress.Policy, acp config.ACP, clk clock.Clock, log *slog.Logger) *Agents {
	log = log.With("component", "agents")
	reg := agent.NewRegistry(agent.RegistryOptions{Store: st, Vault: sealed, Egress: pol, ACP: acp, Clock: clk, Logger: log})
	return &Agents{Registry: reg, Invoker: agent.NewInvoker(agent.InvokerOptions{Registry: reg, Clock: clk, Logger: log})}
}
