package a2aserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/capability"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// The sender of push notifications. Each gateway runs one (RunPush); they
// share the store's configs and cursors, so that a notification is sent
// by one of them, after a restart too:
//
//   - A sweep pages through the configs not done (store.PendingPushConfigs)
//     and reads each one's task, once per task. A config whose last sent
//     state (SentState) is not the task's state has a notification due.
//   - The sender claims it (ClaimPushConfig: a compare-and-set of the
//     cursor with a lease, pushLease); of several gateways one wins.
//   - It POSTs the task, retrying a failure (pushAttempts, backoff), and
//     then advances the cursor (SettlePushConfig). A gateway that dies
//     holding a lease leaves it to run out; the next claim sends again.
//
// So a notification is delivered at least once per state change the
// senders observe, and exactly once unless a gateway dies between the
// webhook's 2xx and the cursor's advance. States a task passes through
// between two sweeps are not each notified: the webhook gets the state the
// sweep finds, and always the last.
//
// a2a-go's push.HTTPPushSender is not used: its http.Client is its own,
// so it cannot dial through the egress rule (its guard refuses every
// private address, allowlisted or not), it reads no bound, and it does not
// retry. The wire is the same: the JSON of an a2a.StreamResponse holding
// the task, the token in A2A-Notification-Token, the credentials in
// Authorization under their scheme.
const (
	defaultPushInterval = 500 * time.Millisecond
	pushPage            = 100
	// pushSweep bounds the configs one sweep looks at (a task read each).
	pushSweep = 1000
	// pushParallel bounds the webhooks one gateway calls at once.
	pushParallel = 8
	pushAttempts = 5
	pushTimeout  = 10 * time.Second // one POST, to its answer's end
	pushBackoff  = 500 * time.Millisecond
	pushMaxWait  = 8 * time.Second
	// pushLease outlasts every attempt and wait of one notification.
	pushLease = 2 * time.Minute
	// maxPushBody bounds a notification; a task over it is sent without
	// its artifacts and history (metadata.truncated), to be read with
	// GetTask.
	maxPushBody = 1 << 20
	// maxPushAnswer is what is read of a webhook's answer.
	maxPushAnswer = 64 << 10
)

// tokenHeader carries a config's token (A2A's, as a2a-go's sender sends it).
const tokenHeader = "A2A-Notification-Token"

// RunPush sends push notifications until ctx ends. Without push configs
// (Push.Store nil) it returns at once.
func (s *Server) RunPush(ctx context.Context) {
	if s.cfg.Push.Store == nil {
		return
	}
	interval := s.cfg.Push.Interval
	if interval <= 0 {
		interval = defaultPushInterval
	}
	slots := make(chan struct{}, pushParallel)
	t := time.NewTicker(interval)
	defer t.Stop()
	var after int64
	for {
		after = s.sweep(ctx, slots, after)
		select {
		case <-ctx.Done():
			for range pushParallel { // wait for the deliveries under way
				slots <- struct{}{}
			}
			return
		case <-t.C:
		case <-s.wake:
		}
	}
}

// sweep looks at up to pushSweep configs not done, from the one after
// seq after, and sends the notifications due. It returns where the next
// sweep starts: 0 once it reached the last config, so that a sweep's work
// is bounded however many tasks are open, and every config is looked at
// in turn.
func (s *Server) sweep(ctx context.Context, slots chan struct{}, after int64) int64 {
	st := s.cfg.Push.Store
	for seen := 0; seen < pushSweep; {
		page, err := st.PendingPushConfigs(ctx, after, time.Now(), pushPage)
		if err != nil {
			if ctx.Err() == nil {
				s.pushLog().Warn("push notifications: configs not read", "err", fault.From(err).Message)
			}
			return 0
		}
		seen += len(page)
		tasks := map[[2]string]*a2a.Task{}
		for _, c := range page {
			after = c.Seq
			key := [2]string{c.AccountID, c.TaskID}
			task, seen := tasks[key]
			if !seen {
				task, err = s.taskFor(ctx, c.AccountID, a2a.TaskID(c.TaskID))
				switch {
				case fault.KindOf(err) == fault.NotFound:
					task = nil // gone: nothing more to send
				case err != nil:
					continue
				}
				tasks[key] = task
			}
			if task == nil {
				_, _ = st.SettlePushConfig(ctx, c.Seq, c.Sent, true, c.SentState, true)
				continue
			}
			if string(task.Status.State) == c.SentState {
				continue
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return 0
			}
			now := time.Now()
			if ok, err := st.ClaimPushConfig(ctx, c.Seq, c.Sent, now, now.Add(pushLease)); err != nil || !ok {
				<-slots // another sender has it, or the cursor moved
				continue
			}
			go func(c store.PushConfig, task *a2a.Task) {
				defer func() { <-slots }()
				s.deliver(ctx, c, task)
			}(c, task)
		}
		if len(page) < pushPage {
			return 0
		}
	}
	return after
}

// deliver sends one claimed notification and settles its cursor: advanced
// once the webhook answered 2xx or the attempts are spent (the failure is
// logged); released, to be claimed again, when the gateway stops first.
func (s *Server) deliver(ctx context.Context, c store.PushConfig, task *a2a.Task) {
	state := string(task.Status.State)
	attempts, status, err := s.post(ctx, c, task)
	settle := context.WithoutCancel(ctx)
	if err != nil && ctx.Err() != nil {
		// Stopped before a 2xx: released, for the next claim to send.
		_, _ = s.cfg.Push.Store.SettlePushConfig(settle, c.Seq, c.Sent, false, "", false)
		return
	}
	log := s.pushLog().With("task", c.TaskID, "config", c.ID, "host", hostOf(c.URL), "state", state, "attempts", attempts)
	if err != nil {
		log.Warn("push notification not delivered", "status", status, "err", err.Error())
	} else {
		log.Debug("push notification delivered", "status", status)
	}
	if _, err := s.cfg.Push.Store.SettlePushConfig(settle, c.Seq, c.Sent, true, state, task.Status.State.Terminal()); err != nil {
		log.Warn("push notification cursor not advanced: it may be sent again", "err", fault.From(err).Message)
	}
}

// post POSTs task to c's webhook, up to pushAttempts times, and says how
// many it took, the last HTTP status (0: none) and the last failure. An
// answer of 4xx other than 408 and 429 is not retried.
func (s *Server) post(ctx context.Context, c store.PushConfig, task *a2a.Task) (int, int, error) {
	body, err := pushBody(task)
	if err != nil {
		return 0, 0, err
	}
	header := http.Header{"Content-Type": {"application/json"}}
	if c.TokenRef != "" {
		sec, err := s.cfg.Push.Vault.Resolve(ctx, c.TokenRef)
		if err != nil {
			return 0, 0, fmt.Errorf("the token could not be opened: %s", fault.From(err).Message)
		}
		header.Set(tokenHeader, sec.Value)
	}
	if c.CredentialsRef != "" {
		sec, err := s.cfg.Push.Vault.Resolve(ctx, c.CredentialsRef)
		if err != nil {
			return 0, 0, fmt.Errorf("the credentials could not be opened: %s", fault.From(err).Message)
		}
		header.Set("Authorization", c.AuthScheme+" "+sec.Value)
	}
	// A redirect elsewhere carries neither secret.
	ctx = egress.WithSensitive(ctx, egress.Sensitive{Headers: []string{tokenHeader, "Authorization"}, Body: true})
	wait := pushBackoff
	var status int
	for attempt := 1; ; attempt++ {
		var retry bool
		status, retry, err = s.postOnce(ctx, c.URL, header, body)
		if err == nil || !retry || attempt == pushAttempts {
			return attempt, status, err
		}
		select {
		case <-ctx.Done():
			return attempt, status, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, pushMaxWait)
	}
}

// postOnce is one POST, bounded by pushTimeout. Its error never holds the
// URL's path or query, nor a header: only the host and what went wrong.
func (s *Server) postOnce(ctx context.Context, rawURL string, header http.Header, body []byte) (int, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, false, errors.New("the webhook URL does not make a request")
	}
	req.Header = header.Clone()
	resp, err := s.cfg.Push.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the whole URL
		}
		if d, ok := egress.IsDenied(err); ok {
			return 0, false, d
		}
		return 0, true, fmt.Errorf("POST to %s: %v", hostOf(rawURL), err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxPushAnswer))
	_ = resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, false, nil
	}
	retry := resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests
	return resp.StatusCode, retry, fmt.Errorf("the webhook at %s answered %d", hostOf(rawURL), resp.StatusCode)
}

// pushBody is a notification: the JSON of an a2a.StreamResponse holding
// the task, without its artifacts and history when it would pass
// maxPushBody.
func pushBody(task *a2a.Task) ([]byte, error) {
	b, err := json.Marshal(a2a.StreamResponse{Event: task})
	if err != nil || len(b) <= maxPushBody {
		return b, err
	}
	small := *task
	small.Artifacts, small.History = nil, nil
	small.Metadata = map[string]any{"truncated": true}
	for k, v := range task.Metadata {
		small.Metadata[k] = v
	}
	return json.Marshal(a2a.StreamResponse{Event: &small})
}

// taskFor is task id of account as a notification carries it (with its
// history), whichever endpoint it was started at: an agent's task or a
// capability's. A run that is not an A2A task is NotFound.
func (s *Server) taskFor(ctx context.Context, accountID string, id a2a.TaskID) (*a2a.Task, error) {
	rec, err := s.cfg.Records.GetExecution(ctx, accountID, string(id))
	if err != nil {
		return nil, err
	}
	var t *a2a.Task
	switch rec.Kind {
	case store.KindAgentWorkflow:
		r, err := s.cfg.Flows.Get(ctx, accountID, string(id))
		if err != nil {
			return nil, err
		}
		if _, ok := agentOf(r); !ok {
			return nil, fault.New(fault.NotFound, "task %s not found", id)
		}
		t = taskOf(r)
	case store.KindCapability:
		t = capTaskOfRecord(rec)
	default:
		return nil, fault.New(fault.NotFound, "task %s not found", id)
	}
	return withHistory(t, rec, nil), nil
}

// capTaskOfRecord is a capability run's record as a task.
func capTaskOfRecord(rec store.Execution) *a2a.Task {
	var res capability.Result
	if len(rec.Result) > 0 {
		_ = json.Unmarshal(rec.Result, &res) // a result that does not read shows as none
	}
	return capTaskOf(rec.ID, rec.SessionID, rec.Status, &res)
}
