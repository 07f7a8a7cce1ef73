package a2aserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/ids"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/vault"
)

// Push notification configs (docs/protocols/a2a.md, "Push notifications"):
// a webhook an account sets on one of its tasks, kept in the store
// (store.PushConfigs) with its token and credentials sealed in the vault,
// and notified of the task's state changes by the sender (pushsend.go).

// Vault seals and opens the webhooks' secrets (vault.Sealed).
type Vault interface {
	Put(ctx context.Context, e vault.Entry) (vault.Metadata, error)
	Delete(ctx context.Context, id string) error
	Resolve(ctx context.Context, id string) (op.Secret, error)
}

// Push is what push notifications need; a nil Store: the four methods
// answer PushNotificationNotSupported and the cards say so.
type Push struct {
	Store store.PushConfigs
	Vault Vault
	// Egress is the server's egress rule, applied to a webhook's URL when
	// it is set; Client (egress.NewClient of the same rule) sends, and the
	// rule is applied again when it dials.
	Egress egress.Policy
	Client *http.Client
	Logger *slog.Logger
	// Interval is how often a sender looks for notifications to send
	// (0: defaultPushInterval); a config set here wakes it at once.
	Interval time.Duration
}

// maxPushSecret bounds a webhook's token and credentials.
const maxPushSecret = 4096

// pushes answers the push notification config methods of one call by p:
// check says whether the task is p's at this endpoint (TaskNotFound
// otherwise, also for another account's task).
type pushes struct {
	s     *Server
	p     *account.Principal
	check func(ctx context.Context, id a2a.TaskID) error
}

func (h pushes) offered() error {
	if h.s.cfg.Push.Store == nil {
		return a2a.ErrPushNotificationNotSupported
	}
	return nil
}

// CreateTaskPushConfig sets (or replaces, by id) a webhook on a task.
func (h pushes) CreateTaskPushConfig(ctx context.Context, req *a2a.PushConfig) (*a2a.PushConfig, error) {
	if err := h.offered(); err != nil {
		return nil, err
	}
	if req == nil {
		return nil, invalid("the push notification config is required")
	}
	if err := h.check(ctx, req.TaskID); err != nil {
		return nil, err
	}
	return h.s.setPush(ctx, h.p.ID, req.TaskID, req, "")
}

func (h pushes) GetTaskPushConfig(ctx context.Context, req *a2a.GetTaskPushConfigRequest) (*a2a.PushConfig, error) {
	if err := h.offered(); err != nil {
		return nil, err
	}
	if err := h.check(ctx, req.TaskID); err != nil {
		return nil, err
	}
	c, err := h.s.cfg.Push.Store.GetPushConfig(ctx, h.p.ID, string(req.TaskID), req.ID)
	if err != nil {
		return nil, pushError(err)
	}
	return pushView(c), nil
}

// ListTaskPushConfigs lists a task's webhooks: at most
// store.MaxPushConfigsPerTask, so one page always.
func (h pushes) ListTaskPushConfigs(ctx context.Context, req *a2a.ListTaskPushConfigRequest) (*a2a.ListTaskPushConfigResponse, error) {
	if err := h.offered(); err != nil {
		return nil, err
	}
	if err := h.check(ctx, req.TaskID); err != nil {
		return nil, err
	}
	list, err := h.s.cfg.Push.Store.ListPushConfigs(ctx, h.p.ID, string(req.TaskID))
	if err != nil {
		return nil, a2aError(err)
	}
	out := &a2a.ListTaskPushConfigResponse{Configs: make([]*a2a.PushConfig, 0, len(list))}
	for _, c := range list {
		out.Configs = append(out.Configs, pushView(c))
	}
	return out, nil
}

// DeleteTaskPushConfig removes a webhook and its sealed secrets.
func (h pushes) DeleteTaskPushConfig(ctx context.Context, req *a2a.DeleteTaskPushConfigRequest) error {
	if err := h.offered(); err != nil {
		return err
	}
	if err := h.check(ctx, req.TaskID); err != nil {
		return err
	}
	c, err := h.s.cfg.Push.Store.DeletePushConfig(ctx, h.p.ID, string(req.TaskID), req.ID)
	if err != nil {
		return pushError(err)
	}
	h.s.dropSecrets(ctx, c.TokenRef, c.CredentialsRef)
	return nil
}

// pushError is a store error about one config: NotFound names the config,
// not the task (the task was found).
func pushError(err error) error {
	if fe := fault.From(err); fe.Kind == fault.NotFound {
		return a2a.NewError(a2a.ErrInvalidParams, fe.Message)
	}
	return a2aError(err)
}

// checkPushURL refuses a webhook URL that is not http(s), holds user
// info, is over the bound, or names a private, loopback or link-local host
// the egress rule does not allowlist. It returns the URL's host, to which
// the secrets are bound.
func (s *Server) checkPushURL(field, raw string) (string, error) {
	if len(raw) > store.MaxPushURLBytes {
		return "", invalid("%s is %d bytes, over the limit of %d", field, len(raw), store.MaxPushURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", invalid("%s: want an http or https URL without user info, such as https://hooks.example.com/a2a", field)
	}
	host, port := u.Hostname(), egress.PortOf(u.Scheme, u.Port())
	if s.cfg.Push.Egress.RefusesLiteral(host, port) {
		return "", invalid("%s: host %s is a private, loopback or link-local address, refused unless the server's egress.allow_private lists it",
			field, net.JoinHostPort(host, port))
	}
	return host, nil
}

// setPush stores cfg on task (of account) with its token and credentials
// sealed in the vault, bound to the webhook's host; a config replaced by
// id has its old secrets dropped. field names the config in errors ("" for
// the request itself).
func (s *Server) setPush(ctx context.Context, accountID string, task a2a.TaskID, cfg *a2a.PushConfig, field string) (*a2a.PushConfig, error) {
	name := func(f string) string {
		if field == "" {
			return f
		}
		return field + "." + f
	}
	host, err := s.checkPushURL(name("url"), cfg.URL)
	if err != nil {
		return nil, err
	}
	id := cfg.ID
	if id == "" {
		id = "push-" + ids.New(ids.Tail)
	}
	if err := store.CheckID(name("id"), id); err != nil {
		return nil, a2aError(err)
	}
	c := store.PushConfig{AccountID: accountID, TaskID: string(task), ID: id, URL: cfg.URL}
	if cfg.Auth != nil {
		if err := store.CheckText(name("authentication.scheme"), cfg.Auth.Scheme, store.MaxPushSchemeBytes, cfg.Auth.Credentials != ""); err != nil {
			return nil, a2aError(err)
		}
		c.AuthScheme = cfg.Auth.Scheme
	}
	seal := func(f, typ, value string) (string, error) {
		if value == "" {
			return "", nil
		}
		if len(value) > maxPushSecret {
			return "", invalid("%s is %d bytes, over the limit of %d", name(f), len(value), maxPushSecret)
		}
		// It goes in a header: a control character would break it (and
		// net/http would refuse the request at every attempt).
		if i := strings.IndexFunc(value, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
			return "", invalid("%s holds a control character at byte %d", name(f), i)
		}
		ref := "a2a-push." + ids.New(ids.Tail) + "." + typ
		_, err := s.cfg.Push.Vault.Put(ctx, vault.Entry{ID: ref, Type: "a2a-push-" + typ, Hosts: []string{host},
			Description: "A2A push notification " + typ + " of task " + string(task) + ", config " + id, Value: vault.NewPlaintext(value)})
		if err != nil {
			// The vault's message names the entry, never the value.
			return "", a2a.NewError(a2a.ErrInternalError, fmt.Sprintf("%s could not be sealed: %s", name(f), fault.From(err).Message))
		}
		return ref, nil
	}
	if c.TokenRef, err = seal("token", "token", cfg.Token); err != nil {
		return nil, err
	}
	if cfg.Auth != nil {
		if c.CredentialsRef, err = seal("authentication.credentials", "credentials", cfg.Auth.Credentials); err != nil {
			s.dropSecrets(ctx, c.TokenRef)
			return nil, err
		}
	}
	stored, replaced, err := s.cfg.Push.Store.PutPushConfig(ctx, c)
	if err != nil {
		s.dropSecrets(ctx, c.TokenRef, c.CredentialsRef)
		return nil, a2aError(err)
	}
	if replaced != nil {
		s.dropSecrets(ctx, replaced.TokenRef, replaced.CredentialsRef)
	}
	s.wakePush()
	return pushView(stored), nil
}

// dropSecrets deletes vault entries a config no longer uses; one left
// behind is logged by id (it opens for the webhook's host alone).
func (s *Server) dropSecrets(ctx context.Context, refs ...string) {
	for _, ref := range refs {
		if ref == "" {
			continue
		}
		if err := s.cfg.Push.Vault.Delete(context.WithoutCancel(ctx), ref); err != nil && fault.KindOf(err) != fault.NotFound {
			s.pushLog().Warn("a push notification secret was left in the vault", "credentialId", ref, "err", fault.From(err).Message)
		}
	}
}

// pushView is a config as the A2A methods answer it: its URL and the
// authentication scheme, never the token or the credentials. The owner
// gave them and keeps them; sluice holds them sealed and shows them to no
// one (A2A lets a server leave them out: both are optional fields).
func pushView(c store.PushConfig) *a2a.PushConfig {
	v := &a2a.PushConfig{TaskID: a2a.TaskID(c.TaskID), ID: c.ID, URL: c.URL}
	if c.AuthScheme != "" {
		v.Auth = &a2a.PushAuthInfo{Scheme: c.AuthScheme}
	}
	return v
}

// configPush sets the push config a SendMessage carries
// (configuration.taskPushNotificationConfig; 0.3's pushNotificationConfig)
// on the task it started. checkConfigPush is its check before the task
// starts, so that a bad webhook starts nothing.
func (s *Server) checkConfigPush(req *a2a.SendMessageRequest) error {
	if req.Config == nil || req.Config.PushConfig == nil {
		return nil
	}
	if s.cfg.Push.Store == nil {
		return a2a.ErrPushNotificationNotSupported
	}
	_, err := s.checkPushURL("configuration.taskPushNotificationConfig.url", req.Config.PushConfig.URL)
	return err
}

func (s *Server) configPush(ctx context.Context, accountID string, req *a2a.SendMessageRequest, task a2a.TaskID) error {
	if req.Config == nil || req.Config.PushConfig == nil {
		return nil
	}
	cfg := *req.Config.PushConfig
	if cfg.ID == "" && req.Message != nil {
		// The same message sent again (a client's retry answers the same
		// task) sets the same config, not one more.
		sum := sha256.Sum256([]byte(req.Message.ID))
		cfg.ID = "send-" + hex.EncodeToString(sum[:8])
	}
	_, err := s.setPush(ctx, accountID, task, &cfg, "configuration.taskPushNotificationConfig")
	return err
}

// wakePush makes the sender look at once (a config was set).
func (s *Server) wakePush() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Server) pushLog() *slog.Logger {
	if s.cfg.Push.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.cfg.Push.Logger
}

// hostOf is a URL's host for logs: never its path or query, which may
// hold a secret of the webhook's own.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return "?"
}
