// Package lru is a map bounded in entries and in cost that forgets the
// least recently used entries first: what the proxy remembers of
// conversations, and the answers a catalog keeps for requests that come
// again. It is hashicorp/golang-lru's simplelru with a cost for each
// value, safe for concurrent use.
package lru

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Cache holds at most n entries (New) and, but for the entry put last, at most
// maxCost in all, as cost counts each value.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	entries *simplelru.LRU[K, entry[V]]
	maxCost int
	total   int
	cost    func(V) int
}

type entry[V any] struct {
	v    V
	cost int
}

// New returns an empty cache of at most n entries (at least one) and
// maxCost in all.
func New[K comparable, V any](n, maxCost int, cost func(V) int) *Cache[K, V] {
	c := &Cache[K, V]{maxCost: maxCost, cost: cost}
	// NewLRU fails only for a size below one.
	c.entries, _ = simplelru.NewLRU(max(n, 1), func(_ K, e entry[V]) { c.total -= e.cost })
	return c
}

// Get returns the value kept for k, now the most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries.Get(k)
	return e.v, ok
}

// Put keeps v for k, forgetting the least recently used entries while
// there are more than n or they cost more than maxCost. The entry just
// put stays even when it alone is over maxCost: the caller that put it
// may use it at once.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries.Peek(k); ok {
		c.total -= old.cost // replaced without the eviction callback
	}
	cost := c.cost(v)
	c.entries.Add(k, entry[V]{v, cost})
	c.total += cost
	for c.entries.Len() > 1 && c.total > c.maxCost {
		c.entries.RemoveOldest()
	}
}

// Remove forgets k.
func (c *Cache[K, V]) Remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.Remove(k)
}

// Len returns the number of entries kept.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries.Len()
}

// Cost returns what the entries kept cost in all.
func (c *Cache[K, V]) Cost() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
