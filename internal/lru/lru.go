// Package lru keeps values by key up to a total cost, dropping the least
// recently used first: the caches of symbol tables, unwind tables and
// processes of a tracer, whose memory must stay bounded.
package lru

import (
	"container/list"
	"sync"
)

// A Cache keeps values of type V by keys of type K, each charged a cost
// (bytes, or 1 to count them), up to a total bound. Get makes a value
// the most recently used; Add drops the least recently used past the
// bound. A Cache is safe for concurrent use.
type Cache[K comparable, V any] struct {
	max int64

	mu   sync.Mutex
	used int64
	ll   list.List // of *entry[K, V], most recently used first
	m    map[K]*list.Element
}

type entry[K comparable, V any] struct {
	k    K
	v    V
	cost int64
}

// New returns a Cache that keeps values costing max in all.
func New[K comparable, V any](max int64) *Cache[K, V] {
	return &Cache[K, V]{max: max, m: make(map[K]*list.Element)}
}

// Get returns the value kept under k, and whether there is one.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*entry[K, V]).v, true
}

// Add keeps v under k, charged cost, and drops the least recently used
// values until the total is within the bound again. It keeps nothing,
// and returns false, when k is kept already (the value first added
// stays) or cost alone passes the bound.
func (c *Cache[K, V]) Add(k K, v V, cost int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok || cost > c.max {
		return false
	}
	c.m[k] = c.ll.PushFront(&entry[K, V]{k, v, cost})
	c.used += cost
	for c.used > c.max {
		c.remove(c.ll.Back())
	}
	return true
}

// Remove drops the value kept under k, if any.
func (c *Cache[K, V]) Remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.remove(e)
	}
}

func (c *Cache[K, V]) remove(e *list.Element) {
	en := e.Value.(*entry[K, V])
	c.ll.Remove(e)
	delete(c.m, en.k)
	c.used -= en.cost
}

// Len returns the number of values kept.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// Cost returns the total cost of the values kept.
func (c *Cache[K, V]) Cost() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
