package unwind

import (
	"debug/elf"
	"fmt"
	"os"

	"github.com/sdtkit/sdtkit/internal/lru"
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
	tables *lru.Cache[string, *Table] // by symbolize.FileKey, charged their size
}

// NewCache returns a Cache that keeps about maxBytes of tables,
// DefaultCacheBytes when maxBytes is 0 or less.
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &Cache{tables: lru.New[string, *Table](maxBytes)}
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
	key, err := symbolize.FileKey(f, symbolize.BuildID(ef))
	if err != nil {
		return nil, fmt.Errorf("unwind: %w", err)
	}
	if key == "" {
		return NewTable(ef)
	}
	if t, ok := c.tables.Get(key); ok {
		return t, nil
	}
	t, err := NewTable(ef)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	c.tables.Add(key, t, t.size())
	return t, nil
}

// Len returns the number of tables kept.
func (c *Cache) Len() int { return c.tables.Len() }
