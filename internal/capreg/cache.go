package capreg

import (
	"container/list"
	"sync"

	"github.com/sluicehq/sluice/protocol/a2s"
)

// docCache keeps parsed, verified documents by checksum, least recently used
// first out. A checksum names one content, so an entry never goes stale: a
// hit is the very document that was verified to hash to it. Documents are
// shared between runs, which only read them.
type docCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of string checksums, most recent first
	items map[string]*cacheItem
}

type cacheItem struct {
	doc *a2s.Document
	el  *list.Element
}

func newDocCache(max int) *docCache {
	return &docCache{max: max, order: list.New(), items: map[string]*cacheItem{}}
}

func (c *docCache) get(sum string) *a2s.Document {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[sum]
	if !ok {
		return nil
	}
	c.order.MoveToFront(it.el)
	return it.doc
}

func (c *docCache) put(sum string, d *a2s.Document) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it, ok := c.items[sum]; ok {
		c.order.MoveToFront(it.el)
		return
	}
	c.items[sum] = &cacheItem{doc: d, el: c.order.PushFront(sum)}
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(string))
	}
}

func (c *docCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}
