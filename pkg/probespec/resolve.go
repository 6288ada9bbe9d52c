package probespec

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// ErrNotFound is matched by Resolve's error for a file it cannot find.
var ErrNotFound = errors.New("not found")

// A ScriptError is a command found in $PATH that is a script: the
// program that runs it is its interpreter, not the script, so the script
// is not the ELF file to trace.
type ScriptError struct {
	Path        string // the script
	Interpreter string // its #! line, without the #!
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("%s is a script run by %s, not an ELF file to trace; name the program it runs", e.Path, e.Interpreter)
}

// Resolve returns the file a specification's PATH names. A name with '/'
// is used as it is. A bare name is looked up as a command in $PATH and as
// a library where the dynamic loader looks ($LD_LIBRARY_PATH, the
// directories of /etc/ld.so.conf, the system library directories); a name
// with ".so" is looked up as a library first. A library may be named
// without its version ("libc.so" finds libc.so.6) or without ".so" at all
// ("libc"). A library candidate that is not an ELF file, such as the
// linker script a -dev package installs as libc.so, is skipped for the
// versioned file the dynamic loader maps. Glob characters in name are
// literal. A command that is a script is a *ScriptError.
func Resolve(name string) (string, error) {
	if strings.ContainsRune(name, '/') {
		// A path: no search, and no ld.so.conf to read.
		return (&resolver{}).resolve(name)
	}
	return hostResolver().resolve(name)
}

// resolver holds where Resolve looks, so tests can point it elsewhere.
type resolver struct {
	path    []string // $PATH
	libPath []string // $LD_LIBRARY_PATH, then ld.so.conf, then the defaults
}

// Directories the dynamic loader searches after ld.so.conf's: Debian's
// and Ubuntu's search their multiarch directories first, Fedora's /lib64
// and /usr/lib64. In a container without /etc/ld.so.cache, the loader
// finds the system's libraries there only.
var defaultLibDirs = append(multiarchDirs[runtime.GOARCH],
	"/lib64", "/usr/lib64", "/lib", "/usr/lib")

// multiarchDirs are the system directories Debian's loader is built
// with, by GOARCH.
var multiarchDirs = map[string][]string{
	"amd64":   {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"},
	"386":     {"/lib/i386-linux-gnu", "/usr/lib/i386-linux-gnu"},
	"arm64":   {"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"},
	"arm":     {"/lib/arm-linux-gnueabihf", "/usr/lib/arm-linux-gnueabihf"},
	"riscv64": {"/lib/riscv64-linux-gnu", "/usr/lib/riscv64-linux-gnu"},
	"s390x":   {"/lib/s390x-linux-gnu", "/usr/lib/s390x-linux-gnu"},
	"ppc64le": {"/lib/powerpc64le-linux-gnu", "/usr/lib/powerpc64le-linux-gnu"},
	"loong64": {"/lib/loongarch64-linux-gnu", "/usr/lib/loongarch64-linux-gnu"},
}

func hostResolver() *resolver {
	r := &resolver{path: filepath.SplitList(os.Getenv("PATH"))}
	r.libPath = append(r.libPath, filepath.SplitList(os.Getenv("LD_LIBRARY_PATH"))...)
	r.libPath = append(r.libPath, ldSoConf("/etc/ld.so.conf", 0)...)
	r.libPath = append(r.libPath, defaultLibDirs...)
	return r
}

func (r *resolver) resolve(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("empty file name: %w", ErrNotFound)
	}
	if strings.ContainsRune(name, '/') {
		if _, err := os.Stat(name); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				// "FILE: no such file or directory", not "FILE: stat FILE: ...".
				err = pe.Err
			}
			return "", fmt.Errorf("%s: %w", name, err)
		}
		return name, nil
	}
	lookups := []func(string) (string, error){r.command, r.library}
	if strings.Contains(name, ".so") {
		slices.Reverse(lookups)
	}
	for _, look := range lookups {
		if p, err := look(name); p != "" || err != nil {
			return p, err
		}
	}
	return "", fmt.Errorf("%s: no such command in $PATH and no such library where the dynamic loader looks: %w", name, ErrNotFound)
}

// command finds name as a shell would: the first executable file of
// that name in $PATH. A script there is an error, as a shell would run
// it with its interpreter.
func (r *resolver) command(name string) (string, error) {
	for _, dir := range r.path {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			if interp := interpreter(p); interp != "" {
				return "", fmt.Errorf("%s: %w", name, &ScriptError{Path: p, Interpreter: interp})
			}
			return p, nil
		}
	}
	return "", nil
}

// interpreter returns the #! line of a script, without the #!, or ""
// when the file does not start with #!.
func interpreter(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 256)
	n, _ := io.ReadFull(f, b)
	line, ok := strings.CutPrefix(string(b[:n]), "#!")
	if !ok {
		return ""
	}
	line, _, _ = strings.Cut(line, "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "an interpreter"
	}
	return line
}

// isELF reports whether the file at p starts with the ELF magic number.
func isELF(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == elf.ELFMAG
}

func (r *resolver) library(name string) (string, error) {
	candidates := []string{name}
	if !strings.Contains(name, ".so") {
		candidates = append(candidates, name+".so")
	}
	for _, dir := range r.libPath {
		for _, c := range candidates {
			p := filepath.Join(dir, c)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && isELF(p) {
				return p, nil
			}
			// libc.so may be missing (no -dev package) or be a
			// linker script; the versioned file is what is mapped.
			if strings.HasSuffix(c, ".so") {
				if p := versioned(dir, c); p != "" {
					return p, nil
				}
			}
		}
	}
	return "", nil
}

// versioned finds the ELF file base.N... in dir, preferring the shortest
// name: the soname (libc.so.6) rather than a full version
// (libfoo.so.1.2.3), which is what the soname links to anyway. base is
// literal, glob characters and all.
func versioned(dir, base string) string {
	ents, _ := os.ReadDir(dir)
	var best string
	for _, e := range ents {
		v, ok := strings.CutPrefix(e.Name(), base+".")
		if !ok || v == "" || v[0] < '0' || v[0] > '9' {
			continue
		}
		m := filepath.Join(dir, e.Name())
		if st, err := os.Stat(m); err != nil || !st.Mode().IsRegular() || !isELF(m) {
			continue
		}
		if best == "" || len(m) < len(best) {
			best = m
		}
	}
	return best
}

// ldSoConf returns the library directories of an ld.so.conf file,
// following its include lines.
func ldSoConf(file string, depth int) []string {
	f, err := os.Open(file)
	if err != nil || depth > 8 {
		if f != nil {
			f.Close()
		}
		return nil
	}
	defer f.Close()
	var dirs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "include"):
			pat := strings.TrimSpace(strings.TrimPrefix(line, "include"))
			if !filepath.IsAbs(pat) {
				pat = filepath.Join(filepath.Dir(file), pat)
			}
			matches, _ := filepath.Glob(pat)
			for _, m := range matches {
				dirs = append(dirs, ldSoConf(m, depth+1)...)
			}
		default:
			dirs = append(dirs, line)
		}
	}
	return dirs
}

// LibraryDirs returns the directories the dynamic loader searches after
// $LD_LIBRARY_PATH and the run paths of the objects: those of
// /etc/ld.so.conf, then the system library directories.
func LibraryDirs() []string {
	return append(ldSoConf("/etc/ld.so.conf", 0), defaultLibDirs...)
}
