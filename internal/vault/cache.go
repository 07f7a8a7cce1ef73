package vault

import (
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/op"
)

// secretCache keeps decrypted values for a short time so that a loop of API
// calls does not read and decrypt the same record for every request. It is
// bounded in entries and in age: a credential changed by another process is
// seen at the latest after the TTL; one changed through this Sealed at once.
type secretCache struct {
	mu      sync.Mutex
	max     int
	ttl     time.Duration
	entries map[string]cached
}

type cached struct {
	secret  op.Secret
	expires time.Time
}

func newSecretCache(max int, ttl time.Duration) *secretCache {
	if max <= 0 || ttl <= 0 {
		return nil
	}
	return &secretCache{max: max, ttl: ttl, entries: make(map[string]cached)}
}

func (c *secretCache) get(id string, now time.Time) (op.Secret, bool) {
	if c == nil {
		return op.Secret{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok {
		return op.Secret{}, false
	}
	if !now.Before(e.expires) {
		delete(c.entries, id)
		return op.Secret{}, false
	}
	return e.secret, true
}

func (c *secretCache) put(id string, s op.Secret, now time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[id]; !ok && len(c.entries) >= c.max {
		c.evict(now)
	}
	c.entries[id] = cached{secret: s, expires: now.Add(c.ttl)}
}

// evict drops expired entries, or failing that one arbitrary entry: with a
// working set larger than the cache, which entry goes matters little.
func (c *secretCache) evict(now time.Time) {
	n := len(c.entries)
	for id, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, id)
		}
	}
	if len(c.entries) < n {
		return
	}
	for id := range c.entries {
		delete(c.entries, id)
		return
	}
}

func (c *secretCache) drop(id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	delete(c.entries, id)
	c.mu.Unlock()
}

func (c *secretCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}
