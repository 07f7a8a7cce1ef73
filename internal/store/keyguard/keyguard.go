// Package keyguard makes the processes that share a store agree on the keys
// that live outside it: the vault master key (which seals the credentials
// every gateway must open) and the API-key pepper (under which every gateway
// must hash a presented key to find it). Both come from each process's data
// directory or environment (SLUICE_MASTER_KEY, SLUICE_KEY_PEPPER); a gateway
// started with other keys would seal what the others cannot open and refuse
// every key, so Check refuses to start it instead, saying what to copy.
//
// What the store keeps proves nothing about the keys to a reader: the master
// key's public id (a truncated SHA-256 of it, as every sealed record carries
// anyway) and one probe, a random key text with its HMAC under the pepper,
// which is no account's key.
package keyguard

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

// Setting names in store.Settings.
const (
	MasterKeySetting = "keys.vault_master_key_id"
	PepperSetting    = "keys.pepper_probe"
)

// probeAccount is the account named in the probe's record; no such account
// exists (ids cannot hold '/'), so the probe can never authenticate.
const probeAccount = "keyguard/probe"

// MasterKeys are the ids of this process's vault master keys (a
// *vault.Keyring): only ids, so that the store's packages need not import the
// vault, which knows operations.
type MasterKeys interface {
	// CurrentID is the id of the key that seals from now on.
	CurrentID() string
	// IDs are the ids of every key the process can open with.
	IDs() []string
}

type probe struct {
	Key  string `json:"key"`
	ID   string `json:"id"`
	Hash []byte `json:"hash"`
}

// Check claims the keys for the store when no process has, and otherwise
// fails unless this process's keys are the ones claimed. A master key
// rotation is followed: when the claimed id is one of this keyring's previous
// keys, the claim moves to the current key (gateways not yet given the new
// key are then refused at their next start, as they could not open what the
// rotated ones seal).
func Check(ctx context.Context, s store.Settings, ring MasterKeys, pepper policy.Pepper, clk clock.Clock, log *slog.Logger) error {
	if clk == nil {
		clk = clock.Real{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := checkPepper(ctx, s, pepper, clk); err != nil {
		return err
	}
	return checkMasterKey(ctx, s, ring, log)
}

func checkMasterKey(ctx context.Context, s store.Settings, ring MasterKeys, log *slog.Logger) error {
	current := ring.CurrentID()
	stored, err := s.ClaimSetting(ctx, MasterKeySetting, []byte(current))
	if err != nil {
		return err
	}
	claimed := string(stored)
	switch {
	case claimed == current:
		return nil
	case slices.Contains(ring.IDs(), claimed):
		if err := s.SwapSetting(ctx, MasterKeySetting, stored, []byte(current)); err != nil {
			return err
		}
		log.Info("vault master key rotated for every gateway of this database", "from", claimed, "to", current)
		return nil
	}
	return fault.New(fault.Invalid, "this server's vault master key (id %s) is not the one the other servers of this database use (id %s)", current, claimed).
		WithSuggestions("Give every server the same master key: copy master.key from the data directory of a server already running, or set SLUICE_MASTER_KEY the same on all",
			"After a rotation, a server needs the new key as its current one (and the old as previous)")
}

func checkPepper(ctx context.Context, s store.Settings, pepper policy.Pepper, clk clock.Clock) error {
	k, rec, err := policy.IssueKey(pepper, policy.KeySpec{Account: probeAccount}, clk.Now())
	if err != nil {
		return err
	}
	mine, err := json.Marshal(probe{Key: k.Reveal(), ID: rec.ID, Hash: rec.Hash})
	if err != nil {
		return err
	}
	stored, err := s.ClaimSetting(ctx, PepperSetting, mine)
	if err != nil {
		return err
	}
	var p probe
	if err := json.Unmarshal(stored, &p); err != nil {
		return fault.New(fault.Internal, "the key pepper's probe in the database is unreadable").WithCause(err)
	}
	theirs, err := policy.ParseKey(p.Key)
	if err != nil {
		return fault.New(fault.Internal, "the key pepper's probe in the database is unreadable").WithCause(err)
	}
	if policy.VerifyKey(pepper, theirs, policy.KeyRecord{ID: p.ID, Account: probeAccount, Hash: p.Hash}, clk.Now()) != policy.KeyValid {
		return fault.New(fault.Invalid, "this server's API-key pepper is not the one the other servers of this database use: no key they issued would work here").
			WithSuggestions("Give every server the same pepper: copy pepper.key from the data directory of a server already running, or set SLUICE_KEY_PEPPER the same on all")
	}
	return nil
}
