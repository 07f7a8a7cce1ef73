package store

import (
	"context"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
)

// Bounds of A2A push notification configs (internal/a2aserver).
const (
	// MaxPushConfigsPerTask bounds the webhooks of one task: each is a POST
	// per state change.
	MaxPushConfigsPerTask = 10
	MaxPushURLBytes       = 2048
	MaxPushSchemeBytes    = 64
)

// PushConfig is an A2A push notification config: a webhook an account set
// on one of its tasks (a run). The token and credentials are not here:
// they are sealed in the vault, and TokenRef and CredentialsRef name the
// vault entries ("" for none).
type PushConfig struct {
	// Seq is the store's number of the config (set by PutPushConfig); the
	// sender's claims and cursor name it.
	Seq            int64
	AccountID      string
	TaskID         string
	ID             string
	URL            string
	TokenRef       string
	AuthScheme     string
	CredentialsRef string
	// Sent is the cursor: how many notifications have been settled
	// (delivered, or given up after their retries); SentState is the task
	// state the last one carried. Done: the task's last state was settled,
	// nothing more will be sent.
	Sent      int64
	SentState string
	Done      bool
	// ClaimUntil is a sender's lease on notification Sent+1 (nil: none).
	ClaimUntil *time.Time
	CreatedAt  time.Time
}

// PushConfigs keeps A2A push notification configs and their senders'
// cursors. Scoping is by account: another account's task holds no config.
type PushConfigs interface {
	// PutPushConfig stores c by (AccountID, TaskID, ID), replacing a config
	// with that key (whose cursor is kept: a replaced webhook is not
	// notified again of what was sent) and returning the one it replaced
	// (nil: none), whose vault entries the caller drops. A task holds at
	// most MaxPushConfigsPerTask.
	PutPushConfig(ctx context.Context, c PushConfig) (stored PushConfig, replaced *PushConfig, err error)
	GetPushConfig(ctx context.Context, accountID, taskID, id string) (PushConfig, error)
	// ListPushConfigs returns a task's configs by id.
	ListPushConfigs(ctx context.Context, accountID, taskID string) ([]PushConfig, error)
	// DeletePushConfig removes a config and returns it; a missing one is
	// NotFound.
	DeletePushConfig(ctx context.Context, accountID, taskID, id string) (PushConfig, error)
	// PendingPushConfigs are up to limit configs not Done and not claimed
	// at now, of every account, with Seq above afterSeq, by Seq: a sender
	// pages through them and starts again at 0.
	PendingPushConfigs(ctx context.Context, afterSeq int64, now time.Time, limit int) ([]PushConfig, error)
	// ClaimPushConfig leases notification sent+1 of config seq until
	// until: true when the config's cursor is still sent and no lease
	// holds at now (a compare-and-set: one sender of many wins).
	ClaimPushConfig(ctx context.Context, seq, sent int64, now, until time.Time) (bool, error)
	// SettlePushConfig ends the lease on notification sent+1: advanced,
	// the cursor moves to sent+1 with state and done; otherwise only the
	// lease goes (the notification will be claimed again). False when the
	// cursor is no longer sent.
	SettlePushConfig(ctx context.Context, seq, sent int64, advance bool, state string, done bool) (bool, error)
}

// CheckPushConfig refuses a config over the bounds or without its key.
func CheckPushConfig(c PushConfig) error {
	for _, f := range [][2]string{{"account id", c.AccountID}, {"taskId", c.TaskID}, {"id", c.ID}} {
		if err := CheckID(f[0], f[1]); err != nil {
			return err
		}
	}
	for _, f := range [][2]string{{"tokenRef", c.TokenRef}, {"credentialsRef", c.CredentialsRef}} {
		if f[1] != "" {
			if err := CheckID(f[0], f[1]); err != nil {
				return err
			}
		}
	}
	if err := CheckText("url", c.URL, MaxPushURLBytes, true); err != nil {
		return err
	}
	return CheckText("authentication.scheme", c.AuthScheme, MaxPushSchemeBytes, false)
}

// PushConfigsFull is the error when a task holds MaxPushConfigsPerTask.
func PushConfigsFull(taskID string) *fault.Error {
	return fault.New(fault.Invalid, "task %s holds %d push notification configs, the most a task may have", taskID, MaxPushConfigsPerTask).
		WithDetail("limit", MaxPushConfigsPerTask).
		WithSuggestions("Delete a config you no longer use, or replace one by giving its id")
}
