package symbolize

import (
	"fmt"
	"os"
	"syscall"

	"github.com/sdtkit/sdtkit/internal/lru"
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
	opts    Options
	objects *lru.Cache[string, *Object] // by FileKey, charged their memSize
}

// NewCache returns a Cache that reads objects with opts (nil for the
// defaults) and keeps about maxBytes of them, DefaultCacheBytes when
// maxBytes is 0 or less.
func NewCache(opts *Options, maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	c := &Cache{objects: lru.New[string, *Object](maxBytes)}
	if opts != nil {
		c.opts = *opts
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
	key, err := FileKey(f.f, f.buildID)
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", r.path, err)
	}
	if key == "" {
		return f.load(&c.opts), nil
	}
	if obj, ok := c.objects.Get(key); ok {
		return obj, nil
	}
	obj := f.load(&c.opts)
	c.objects.Add(key, obj, obj.memSize()) // unless read twice at once, or too large to keep
	return obj, nil
}

// FileKey returns what names the build of the ELF file f, whose
// build-id is buildID: "build-id:" and the build-id, or for a file
// without one its device, inode, size and modification time; "" for a
// file that cannot be told apart from others.
func FileKey(f *os.File, buildID string) (string, error) {
	if buildID != "" {
		return "build-id:" + buildID, nil
	}
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "", nil
	}
	return fmt.Sprintf("file:%d:%d:%d:%d", sys.Dev, sys.Ino, st.Size(), st.ModTime().UnixNano()), nil
}

// Len returns the number of objects kept.
func (c *Cache) Len() int { return c.objects.Len() }

// Bytes returns the estimated memory of the objects kept.
func (c *Cache) Bytes() int64 { return c.objects.Cost() }
