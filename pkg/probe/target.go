package probe

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
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

	debugDirs []string    // Options.DebugDirs
	warn      func(error) // Options.Warn
	symsOnce  sync.Once
	syms      *symbolize.Object
	symsErr   error
}

// Symbols returns the symbols of the file, read on first use: only
// arguments relative to a symbol need them. A file stripped of .symtab
// has them read from its debug file, under Options.DebugDirs. The error
// says why the file could not be read, and then the Object is nil, or
// why a source of symbols it names could not be used (a debug file that
// does not match), and then the Object holds the others; it is given to
// Options.Warn too, once.
func (t *Target) Symbols() (*symbolize.Object, error) {
	t.symsOnce.Do(func() {
		// symbolize opens regular files only: the file may have been
		// replaced by a named pipe since its notes were read.
		t.syms, t.symsErr = symbolize.Open(t.Path, &symbolize.Options{DebugDirs: t.debugDirs})
		if t.syms != nil {
			t.symsErr = errors.Join(t.syms.Warnings...)
		}
		if t.symsErr != nil && t.warn != nil {
			t.warn(fmt.Errorf("%s: symbols: %w", t.Name, t.symsErr))
		}
	})
	return t.syms, t.symsErr
}

// SymbolAddr returns the link-time address of the symbol name that an
// argument of the site at link-time address pc names, from Symbols (see
// symbolize.Object.SymbolAddr): a Target is the stapsdt.SymbolTable of
// its file, which reads the symbols only once an argument names one.
func (t *Target) SymbolAddr(name string, pc uint64) (uint64, error) {
	obj, _ := t.Symbols()
	return obj.SymbolAddr(name, pc)
}

// files holds the targets read so far, each once, in the order they
// were first named.
type files struct {
	warn      func(error)
	debugDirs []string
	list      []*Target
	byID      map[[2]uint64]*Target
	damaged   []string
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
	t := &Target{Name: name, Path: path, Dev: id[0], Inode: id[1], File: f, debugDirs: fs.debugDirs, warn: fs.warn}
	if fs.byID == nil {
		fs.byID = make(map[[2]uint64]*Target)
	}
	fs.byID[id] = t
	fs.list = append(fs.list, t)
	return t, nil
}
