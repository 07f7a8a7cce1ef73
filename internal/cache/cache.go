// Package cache is the in-memory result cache of operations: entries live per
// account (never shared), expire after their TTL on an injectable clock, are
// bounded in number with least-recently-used eviction, and carry a scope so a
// write can drop the entries it makes stale.
package cache

import (
	"container/list"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
)

// Defaults of Config.
const (
	DefaultMaxEntries    = 10000
	DefaultMaxPerAccount = 1000
)

// Config bounds a Cache.
type Config struct {
	MaxEntries    int // all accounts together; default 10000
	MaxPerAccount int // one account, so one busy account cannot evict everyone; default 1000
	Clock         clock.Clock
}

// Cache is safe for concurrent use. Values are stored as given and handed out
// as stored: callers store immutable JSON values only.
type Cache struct {
	mu       sync.Mutex
	cfg      Config
	lru      *list.List // front: most recently used; elements hold *entry
	accounts map[string]map[string]*list.Element
}

type entry struct {
	account, key, scope string
	value               any
	expires             time.Time
}

// New makes a cache; zero fields of cfg take the defaults (real clock).
func New(cfg Config) *Cache {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	if cfg.MaxPerAccount <= 0 {
		cfg.MaxPerAccount = DefaultMaxPerAccount
	}
	if cfg.MaxPerAccount > cfg.MaxEntries {
		cfg.MaxPerAccount = cfg.MaxEntries
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	return &Cache{cfg: cfg, lru: list.New(), accounts: map[string]map[string]*list.Element{}}
}

// Get returns the account's live value for key.
func (c *Cache) Get(account, key string) (any, bool) {
	now := c.cfg.Clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.accounts[account][key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if !now.Before(e.expires) {
		c.remove(el)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.value, true
}

// Put stores v under the account's key for ttl (nothing when ttl <= 0).
func (c *Cache) Put(account, key, scope string, v any, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	expires := c.cfg.Clock.Now().Add(ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.accounts[account]
	if el, ok := entries[key]; ok {
		e := el.Value.(*entry)
		e.scope, e.value, e.expires = scope, v, expires
		c.lru.MoveToFront(el)
		return
	}
	if entries == nil {
		entries = map[string]*list.Element{}
		c.accounts[account] = entries
	}
	if len(entries) >= c.cfg.MaxPerAccount {
		c.evictOldest(account)
	}
	for c.lru.Len() >= c.cfg.MaxEntries {
		c.remove(c.lru.Back())
	}
	entries[key] = c.lru.PushFront(&entry{account: account, key: key, scope: scope, value: v, expires: expires})
}

// InvalidateScope drops the account's entries whose scope starts with prefix.
func (c *Cache) InvalidateScope(account, prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, el := range c.accounts[account] {
		if strings.HasPrefix(el.Value.(*entry).scope, prefix) {
			c.remove(el)
		}
	}
}

// Invalidate drops every entry of the account (the spec's manual invalidate()).
func (c *Cache) Invalidate(account string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, el := range c.accounts[account] {
		c.lru.Remove(el)
	}
	delete(c.accounts, account)
}

// Len is the number of entries held, expired ones included until touched.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// evictOldest drops the account's least recently used entry. Walking the global
// list from the back finds it without a per-account list; expired entries of any
// account met on the way are dropped too.
func (c *Cache) evictOldest(account string) {
	now := c.cfg.Clock.Now()
	for el := c.lru.Back(); el != nil; {
		prev := el.Prev()
		e := el.Value.(*entry)
		if e.account == account {
			c.remove(el)
			return
		}
		if !now.Before(e.expires) {
			c.remove(el)
		}
		el = prev
	}
}

func (c *Cache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*entry)
	entries := c.accounts[e.account]
	delete(entries, e.key)
	if len(entries) == 0 {
		delete(c.accounts, e.account)
	}
}
