package unwind

import (
	"container/list"
	"debug/elf"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// DefaultCacheBytes bounds a Cache made with no bound: the call-frame
// information of a few hundred libraries.
const DefaultCacheBytes = 128 << 20

// A Cache keeps the Tables it has read, keyed by build-id, or by device,
// inode, size and modification time for a file without one, so that a
// file mapped by many processes, or the same build at many paths, is
// read once. The least recently used are dropped once the tables hold
// more than the bound. A Cache is safe for concurrent use.
type Cache struct {
	maxBytes int64

	mu      sync.Mutex
	used    int64
	lru     list.List // of *tableEntry, most recently used first
	entries map[string]*list.Element
}

type tableEntry struct {
	key string
	t   *Table
}

// NewCache returns a Cache that keeps about maxBytes of tables,
// DefaultCacheBytes when maxBytes is 0 or less.
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &Cache{maxBytes: maxBytes, entries: map[string]*list.Element{}}
}

// Open returns the Table of the ELF file at path, read anew only when
// none of the same build is kept.
func (c *Cache) Open(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("unwind: %w", err)
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return nil, fmt.Errorf("unwind: %s: %w", path, err)
	}
	key := "build-id:" + symbolize.BuildID(ef)
	if key == "build-id:" {
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("unwind: %w", err)
		}
		sys, _ := st.Sys().(*syscall.Stat_t)
		if sys == nil {
			return NewTable(ef)
		}
		key = fmt.Sprintf("file:%d:%d:%d:%d", sys.Dev, sys.Ino, st.Size(), st.ModTime().UnixNano())
	}
	if t := c.get(key); t != nil {
		return t, nil
	}
	t, err := NewTable(ef)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	c.put(key, t)
	return t, nil
}

func (c *Cache) get(key string) *Table {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*tableEntry).t
}

func (c *Cache) put(key string, t *Table) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok || t.size() > c.maxBytes {
		return
	}
	c.entries[key] = c.lru.PushFront(&tableEntry{key, t})
	c.used += t.size()
	for c.used > c.maxBytes {
		e := c.lru.Back()
		te := e.Value.(*tableEntry)
		c.lru.Remove(e)
		delete(c.entries, te.key)
		c.used -= te.t.size()
	}
}

// Len returns the number of tables kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
