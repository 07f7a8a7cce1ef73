package vault

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
)

// Bounds of an entry.
const (
	MaxIDLen          = 128
	MaxTypeLen        = 64
	MaxDescriptionLen = 1024
	MaxValueLen       = 64 << 10
)

// Cache defaults (Options).
const (
	DefaultCacheSize = 1024
	DefaultCacheTTL  = time.Minute
)

// Options tune a Sealed vault.
type Options struct {
	Clock  clock.Clock  // nil: the real clock
	Logger *slog.Logger // nil: discard; records that fail to open are logged at Error
	// CacheSize bounds the decrypted values kept in memory (0: DefaultCacheSize;
	// negative: no cache). CacheTTL is how long one is kept (0: DefaultCacheTTL).
	CacheSize int
	CacheTTL  time.Duration
}

// Sealed is the server's vault: credentials sealed with AES-256-GCM under the
// keyring's current master key and kept by a Records backend. It implements
// op.Vault for the engine and Put/List/Describe/Delete/Rotate for the admin API.
type Sealed struct {
	recs  Records
	ring  *Keyring
	clock clock.Clock
	log   *slog.Logger
	cache *secretCache
	// writes serialises Put, Delete and Rotate in this process, so a rotation
	// never races a write of its own vault.
	writes sync.Mutex
}

var (
	_ op.Vault        = (*Sealed)(nil)
	_ op.HostBindings = (*Sealed)(nil)
	_ op.HostBindings = (*Memory)(nil)
)

// NewSealed makes a vault over recs sealing with ring.
func NewSealed(recs Records, ring *Keyring, opts Options) *Sealed {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	size, ttl := opts.CacheSize, opts.CacheTTL
	if size == 0 {
		size = DefaultCacheSize
	}
	if ttl == 0 {
		ttl = DefaultCacheTTL
	}
	return &Sealed{recs: recs, ring: ring, clock: opts.Clock, log: opts.Logger, cache: newSecretCache(size, ttl)}
}

// Entry is a credential to store. Its Value is a Plaintext, which never
// prints; the JSON form is what the admin API takes.
type Entry struct {
	ID          string `json:"id"`
	Type        string `json:"type"` // e.g. bearer-token (sent as "Bearer <value>"), api-key
	Description string `json:"description,omitempty"`
	// Hosts bind the credential to the hosts ("host", "host:port",
	// "*.domain") it may be sent to; empty: unbound (not recommended).
	Hosts []string  `json:"hosts,omitempty"`
	Value Plaintext `json:"value"`
}

// Metadata is what the admin API may show of a credential: never its value.
type Metadata struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	Description string    `json:"description"`
	Hosts       []string  `json:"hosts"` // [] when unbound
	KeyID       string    `json:"key_id"`
	Created     time.Time `json:"created_at"`
	Updated     time.Time `json:"updated_at"`
}

func metadataOf(r Record) Metadata {
	hosts := slices.Clone(r.Hosts)
	if hosts == nil {
		hosts = []string{}
	}
	return Metadata{ID: r.ID, Type: r.Type, Description: r.Description, Hosts: hosts, KeyID: r.KeyID, Created: r.Created, Updated: r.Updated}
}

// Put seals e under the current master key and stores it, replacing any entry
// with the same id (whose creation time is kept).
func (s *Sealed) Put(ctx context.Context, e Entry) (Metadata, error) {
	if err := validateEntry(e); err != nil {
		return Metadata{}, err
	}
	hosts, err := policy.NormalizeCredentialHosts(e.Hosts)
	if err != nil {
		return Metadata{}, err
	}
	s.writes.Lock()
	defer s.writes.Unlock()
	now := s.clock.Now().UTC()
	old, exists, err := s.recs.Get(ctx, e.ID)
	if err != nil {
		return Metadata{}, storeError(err)
	}
	nonce, ct, err := seal(s.ring.current, e.ID, e.Type, hosts, []byte(e.Value.Reveal()))
	if err != nil {
		return Metadata{}, fault.New(fault.Internal, "credential %q could not be sealed", e.ID).WithCause(err)
	}
	rec := Record{ID: e.ID, Type: e.Type, Description: e.Description, Hosts: hosts, KeyID: s.ring.current.id,
		Nonce: nonce, Ciphertext: ct, Created: now, Updated: now}
	if exists {
		rec.Created = old.Created
	}
	if err := s.recs.Put(ctx, rec); err != nil {
		return Metadata{}, storeError(err)
	}
	s.cache.drop(e.ID)
	return metadataOf(rec), nil
}

// Describe returns the metadata of one credential; an unknown id is NotFound.
func (s *Sealed) Describe(ctx context.Context, id string) (Metadata, error) {
	rec, ok, err := s.recs.Get(ctx, id)
	if err != nil {
		return Metadata{}, storeError(err)
	}
	if !ok {
		return Metadata{}, notFound(id)
	}
	return metadataOf(rec), nil
}

// List returns the metadata of every credential, ordered by id.
func (s *Sealed) List(ctx context.Context) ([]Metadata, error) {
	recs, err := s.recs.List(ctx)
	if err != nil {
		return nil, storeError(err)
	}
	out := make([]Metadata, len(recs))
	for i, r := range recs {
		out[i] = metadataOf(r)
	}
	return out, nil
}

// Delete removes a credential; an unknown id is NotFound.
func (s *Sealed) Delete(ctx context.Context, id string) error {
	s.writes.Lock()
	defer s.writes.Unlock()
	ok, err := s.recs.Delete(ctx, id)
	s.cache.drop(id)
	if err != nil {
		return storeError(err)
	}
	if !ok {
		return notFound(id)
	}
	return nil
}

// Resolve opens the credential id. An unknown id is the same PermissionError
// as Memory's; a record that does not open (wrong or missing master key, or
// tampered with) is an internal error whose message names the id only.
func (s *Sealed) Resolve(ctx context.Context, id string) (op.Secret, error) {
	if err := ctx.Err(); err != nil {
		return op.Secret{}, err
	}
	now := s.clock.Now()
	if sec, ok := s.cache.get(id, now); ok {
		return sec, nil
	}
	rec, ok, err := s.recs.Get(ctx, id)
	if err != nil {
		return op.Secret{}, storeError(err)
	}
	if !ok {
		return op.Secret{}, unavailable(id)
	}
	value, err := open(s.ring, id, rec)
	if err != nil {
		s.log.ErrorContext(ctx, "vault record does not open", "credentialId", id, "keyId", rec.KeyID, "err", err)
		return op.Secret{}, fault.New(fault.Internal, "credential %q cannot be decrypted", id).
			WithCause(fmt.Errorf("record sealed with master key %s: %w", rec.KeyID, err)).
			WithSuggestions("An operator should check that the server runs with the master key this credential was sealed with")
	}
	sec := op.Secret{Type: rec.Type, Value: string(value), Hosts: rec.Hosts}
	s.cache.put(id, sec, now)
	return sec, nil
}

// RotateReport says what a rotation did.
type RotateReport struct {
	KeyID    string `json:"key_id"`   // the current key, which every record is now sealed with
	Total    int    `json:"total"`    // records seen
	Resealed int    `json:"resealed"` // records moved to the current key
	Current  int    `json:"current"`  // records already under it
	Changed  int    `json:"changed"`  // records written by someone else meanwhile, left as they were
}

// Rotate re-seals every record not yet under the current master key. It opens
// every record first and writes nothing unless all open; then it swaps them in
// with Records.Reseal (one transaction where the backend allows). Previous keys
// can be dropped once a rotation reports Resealed+Current == Total.
func (s *Sealed) Rotate(ctx context.Context) (RotateReport, error) {
	s.writes.Lock()
	defer s.writes.Unlock()
	recs, err := s.recs.List(ctx)
	if err != nil {
		return RotateReport{}, storeError(err)
	}
	rep := RotateReport{KeyID: s.ring.current.id, Total: len(recs)}
	var swaps []Swap
	var broken []string
	now := s.clock.Now().UTC()
	for _, rec := range recs {
		if rec.KeyID == s.ring.current.id {
			rep.Current++
			continue
		}
		value, err := open(s.ring, rec.ID, rec)
		if err != nil {
			s.log.ErrorContext(ctx, "vault record does not open for rotation", "credentialId", rec.ID, "keyId", rec.KeyID, "err", err)
			broken = append(broken, rec.ID)
			continue
		}
		nonce, ct, err := seal(s.ring.current, rec.ID, rec.Type, rec.Hosts, value)
		if err != nil {
			return RotateReport{}, fault.New(fault.Internal, "rotation failed while sealing").WithCause(err)
		}
		nr := rec
		nr.KeyID, nr.Nonce, nr.Ciphertext, nr.Updated = s.ring.current.id, nonce, ct, now
		swaps = append(swaps, Swap{ID: rec.ID, OldNonce: rec.Nonce, New: nr})
	}
	if len(broken) > 0 {
		return RotateReport{}, fault.New(fault.Internal, "rotation refused: %d credential(s) do not open with any key in the keyring: %s",
			len(broken), listIDs(broken)).WithDetail("credentialIds", broken).
			WithSuggestions("Start the server with the previous master keys (SLUICE_MASTER_KEY_PREVIOUS or master.key.* files) and rotate again")
	}
	if len(swaps) == 0 {
		return rep, nil
	}
	n, err := s.recs.Reseal(ctx, swaps)
	if err != nil {
		return RotateReport{}, storeError(err)
	}
	s.cache.clear()
	rep.Resealed, rep.Changed = n, len(swaps)-n
	return rep, nil
}

// listIDs names at most 10 ids in a message.
func listIDs(ids []string) string {
	const max = 10
	s := fmt.Sprintf("%q", ids[:min(len(ids), max)])
	if len(ids) > max {
		s += fmt.Sprintf(" and %d more", len(ids)-max)
	}
	return s
}

func validateEntry(e Entry) error {
	field := func(name, format string, args ...any) *fault.Error {
		return fault.New(fault.Invalid, "credential "+name+": "+format, args...).WithDetail("field", name)
	}
	switch {
	case !validName(e.ID, MaxIDLen, true):
		return field("id", "must be 1 to %d characters: letters, digits and . _ : - (starting with a letter or digit)", MaxIDLen)
	case !validName(e.Type, MaxTypeLen, false):
		return field("type", "must be 1 to %d characters: lower-case letters, digits and . _ - (e.g. bearer-token, api-key)", MaxTypeLen).
			WithSuggestions("bearer-token values are sent as \"Bearer <value>\"; other types as they are")
	case len(e.Description) > MaxDescriptionLen || !utf8.ValidString(e.Description):
		return field("description", "must be valid UTF-8 of at most %d bytes", MaxDescriptionLen)
	case e.Value.Len() == 0:
		return field("value", "is empty")
	case e.Value.Len() > MaxValueLen:
		return field("value", "is %d bytes; at most %d are allowed", e.Value.Len(), MaxValueLen)
	}
	return nil
}

// validName checks an id (letters of both cases, digits, . _ : -) or a type
// (lower-case letters, digits, . _ -); both start with a letter or digit.
func validName(s string, max int, id bool) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case id && 'A' <= c && c <= 'Z':
		case i > 0 && (c == '.' || c == '_' || c == '-' || id && c == ':'):
		default:
			return false
		}
	}
	return true
}

func notFound(id string) *fault.Error {
	return fault.New(fault.NotFound, "credential %q does not exist", id).WithDetail("credentialId", id)
}

func storeError(err error) *fault.Error {
	if fe, ok := fault.As(err); ok {
		return fe
	}
	return fault.New(fault.Unavailable, "the credential store is unavailable").WithCause(err).Retry(0)
}

// BoundHosts implements op.HostBindings: the hosts credential id is bound to,
// read without opening it; ok is false for an unknown id.
func (s *Sealed) BoundHosts(ctx context.Context, id string) ([]string, bool, error) {
	rec, ok, err := s.recs.Get(ctx, id)
	if err != nil {
		return nil, false, storeError(err)
	}
	return rec.Hosts, ok, nil
}
