package symbolize

import (
	"container/list"
	"fmt"
	"sync"
	"syscall"
)

// DefaultCacheBytes is the memory a Cache made with no bound keeps its
// objects in: the symbols of a few hundred typical libraries, or of a
// few very large programs.
const DefaultCacheBytes = 256 << 20

// A Cache keeps the Objects it has read, keyed by build-id, so that a file
// mapped by many processes, or the same build at many paths (containers),
// is read once. A file without a build-id is keyed by its device, inode,
// size and modification time.
//
// The memory is bounded: each Object is charged an estimate of what it
// holds (its symbols, their names), and the least recently used are
// dropped once the total passes the bound. An Object larger than the
// bound on its own is returned but not kept. An Object shared by build-id
// keeps the Path of the first file it was read from. Objects handed out stay
// valid after they are dropped. A Cache is safe for concurrent use.
type Cache struct {
	opts     Options
	maxBytes int64

	mu      sync.Mutex
	used    int64
	lru     list.List // of *cacheEntry, most recently used first
	entries map[string]*list.Element
}

type cacheEntry struct {
	key  string
	obj  *Object
	size int64
}

// NewCache returns a Cache that reads objects with opts (nil for the
// defaults) and keeps about maxBytes of them, DefaultCacheBytes when
// maxBytes is 0 or less.
func NewCache(opts *Options, maxBytes int64) *Cache {
	c := &Cache{maxBytes: maxBytes, entries: make(map[string]*list.Element)}
	if opts != nil {
		c.opts = *opts
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultCacheBytes
	}
	return c
}

// Open returns the Object of the ELF file at path, read anew only when
// no object of the same build is kept.
func (c *Cache) Open(path string) (*Object, error) {
	return c.open(ref{host: path, path: path})
}

func (c *Cache) open(r ref) (*Object, error) {
	f, err := openELF(r)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	key := "build-id:" + f.buildID
	if f.buildID == "" {
		st, err := f.f.Stat()
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", r.path, err)
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return f.load(&c.opts), nil
		}
		key = fmt.Sprintf("file:%d:%d:%d:%d", sys.Dev, sys.Ino, st.Size(), st.ModTime().UnixNano())
	}
	if obj := c.get(key); obj != nil {
		return obj, nil
	}
	obj := f.load(&c.opts)
	c.put(key, obj)
	return obj, nil
}

func (c *Cache) get(key string) *Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).obj
}

func (c *Cache) put(key string, obj *Object) {
	size := obj.memSize()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok || size > c.maxBytes {
		return // read twice at once, or too large to keep
	}
	c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, obj: obj, size: size})
	c.used += size
	for c.used > c.maxBytes {
		e := c.lru.Back()
		ce := e.Value.(*cacheEntry)
		c.lru.Remove(e)
		delete(c.entries, ce.key)
		c.used -= ce.size
	}
}

// Len returns the number of objects kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Bytes returns the estimated memory of the objects kept.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
