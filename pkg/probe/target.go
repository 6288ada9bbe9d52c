package probe

import (
	"debug/elf"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/sdtkit/sdtkit/internal/regfile"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// A Target is one ELF file whose probes were selected.
type Target struct {
	// Name is the file as shown: the resolved path, or the path the
	// process maps.
	Name string
	// Path is the file to open and attach by: through /proc/PID/root or
	// /proc/PID/map_files for a file a process maps.
	Path       string
	Dev, Inode uint64
	// File holds the probe sites; nil once Release was called.
	File *stapsdt.File

	symsOnce sync.Once
	syms     map[string]uint64
	symsErr  error
}

// Symbols returns the link-time addresses of the file's symbols, read on
// first use: only arguments relative to a symbol need them (see
// stapsdt.Symbols).
func (t *Target) Symbols() (map[string]uint64, error) {
	t.symsOnce.Do(func() {
		// Not elf.Open: the file may have been replaced by a named
		// pipe since its notes were read.
		fd, err := regfile.Open(t.Path)
		if err != nil {
			t.symsErr = err
			return
		}
		defer fd.Close()
		f, err := elf.NewFile(fd)
		if err != nil {
			t.symsErr = err
			return
		}
		t.syms, t.symsErr = stapsdt.Symbols(f)
	})
	return t.syms, t.symsErr
}

// files holds the targets read so far, each once, in the order they
// were first named.
type files struct {
	warn    func(error)
	list    []*Target
	byID    map[[2]uint64]*Target
	damaged []string
}

// open returns the target for the file at path, reading its sites on
// the first call, or taking them from f when it is not nil.
func (fs *files) open(name, path string, f *stapsdt.File, ferr error) (*Target, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("%s: no inode", name)
	}
	id := [2]uint64{uint64(st.Dev), st.Ino}
	if t := fs.byID[id]; t != nil {
		return t, nil
	}
	if f == nil {
		f, ferr = stapsdt.Open(path)
		if f == nil {
			return nil, ferr
		}
	}
	if ferr != nil {
		// The probes of the notes that could be decoded are still usable.
		fs.damaged = append(fs.damaged, name)
		if fs.warn != nil {
			fs.warn(ferr)
		}
	}
	t := &Target{Name: name, Path: path, Dev: id[0], Inode: id[1], File: f}
	if fs.byID == nil {
		fs.byID = make(map[[2]uint64]*Target)
	}
	fs.byID[id] = t
	fs.list = append(fs.list, t)
	return t, nil
}
