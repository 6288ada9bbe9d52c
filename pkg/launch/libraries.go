package launch

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// Libraries returns the shared libraries the dynamic loader loads at
// the start of the program in the ELF file exe, run with the environment
// env: those of $LD_PRELOAD, then the DT_NEEDED closure, breadth first,
// each found as the loader finds it (see the package documentation). A
// library the loader would not find is left out: the program fails to
// start, and says why. exe itself and its interpreter are not included.
func Libraries(exe string, env []string) ([]string, error) {
	l := &loader{system: probespec.LibraryDirs()}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "LD_LIBRARY_PATH="); ok {
			l.libPath = splitPath(v, ":;")
		}
		if v, ok := strings.CutPrefix(kv, "LD_PRELOAD="); ok {
			l.preload = splitPath(v, ": ")
		}
	}
	return l.closure(exe)
}

// splitPath splits a list of paths at any of the separators, leaving
// out empty entries.
func splitPath(s, seps string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
}

// A loader finds libraries as the dynamic loader does.
type loader struct {
	libPath []string // $LD_LIBRARY_PATH
	preload []string // $LD_PRELOAD
	system  []string // ld.so.conf's directories, then the defaults

	class   elf.Class
	machine elf.Machine
}

// An object is what the loader needs of an ELF file's dynamic section.
type object struct {
	path           string
	needed         []string
	rpath, runpath []string // $ORIGIN expanded
	class          elf.Class
	machine        elf.Machine
}

func readObject(path string) (*object, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := &object{path: path, class: f.Class, machine: f.Machine}
	// A static program has no dynamic section, and so no entries.
	o.needed, _ = f.DynString(elf.DT_NEEDED)
	origin := filepath.Dir(path)
	if rp, _ := f.DynString(elf.DT_RPATH); len(rp) > 0 {
		o.rpath = expandOrigin(splitPath(strings.Join(rp, ":"), ":"), origin)
	}
	if rp, _ := f.DynString(elf.DT_RUNPATH); len(rp) > 0 {
		o.runpath = expandOrigin(splitPath(strings.Join(rp, ":"), ":"), origin)
	}
	return o, nil
}

// expandOrigin replaces $ORIGIN and ${ORIGIN} in dirs by origin, the
// directory of the object that names them. Other tokens ($LIB,
// $PLATFORM) are left, so that such a directory is not found.
func expandOrigin(dirs []string, origin string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		d = strings.ReplaceAll(d, "${ORIGIN}", origin)
		out[i] = strings.ReplaceAll(d, "$ORIGIN", origin)
	}
	return out
}

// searchDirs returns where the loader looks for a library that o needs:
// the DT_RPATH of o and of the executable when o has no DT_RUNPATH,
// $LD_LIBRARY_PATH, the DT_RUNPATH of o, then the system directories.
func (l *loader) searchDirs(o, exe *object) []string {
	var dirs []string
	if len(o.runpath) == 0 {
		dirs = append(dirs, o.rpath...)
		if o != exe {
			dirs = append(dirs, exe.rpath...)
		}
	}
	dirs = append(dirs, l.libPath...)
	dirs = append(dirs, o.runpath...)
	return append(dirs, l.system...)
}

// find returns the library name, which o needs, as the loader finds it,
// or nil.
func (l *loader) find(name string, dirs []string) *object {
	if strings.ContainsRune(name, '/') {
		return l.load(name)
	}
	for _, d := range dirs {
		if o := l.load(filepath.Join(d, name)); o != nil {
			return o
		}
	}
	return nil
}

// load reads the ELF file at path if it is an object of the program's
// class and machine: the loader passes over the others (a 32-bit
// library in a directory searched for 64-bit ones).
func (l *loader) load(path string) *object {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	o, err := readObject(path)
	if err != nil || o.class != l.class || o.machine != l.machine {
		return nil
	}
	return o
}

// closure walks the libraries of exe, breadth first.
func (l *loader) closure(exe string) ([]string, error) {
	e, err := readObject(exe)
	if err != nil {
		return nil, fmt.Errorf("libraries of %s: %w", exe, err)
	}
	l.class, l.machine = e.class, e.machine
	var out []string
	seen := make(map[string]bool) // by DT_NEEDED name and by file
	type pending struct {
		name string
		by   *object
	}
	var queue []pending
	for _, p := range l.preload {
		queue = append(queue, pending{p, e})
	}
	for _, n := range e.needed {
		queue = append(queue, pending{n, e})
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p.name] {
			continue
		}
		seen[p.name] = true
		o := l.find(p.name, l.searchDirs(p.by, e))
		if o == nil {
			continue
		}
		real := o.path
		if r, err := filepath.EvalSymlinks(o.path); err == nil {
			real = r
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		out = append(out, o.path)
		for _, n := range o.needed {
			queue = append(queue, pending{n, o})
		}
	}
	return out, nil
}
