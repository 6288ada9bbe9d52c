package probespec

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNotFound is matched by Resolve's error for a file it cannot find.
var ErrNotFound = errors.New("not found")

// Resolve returns the file a specification's PATH names. A name with '/'
// is used as it is. A bare name is looked up as a command in $PATH and as
// a library where the dynamic loader looks ($LD_LIBRARY_PATH, the
// directories of /etc/ld.so.conf, the system library directories); a name
// with ".so" is looked up as a library first. A library may be named
// without its version ("libc.so" finds libc.so.6) or without ".so" at all
// ("libc").
func Resolve(name string) (string, error) {
	return hostResolver().resolve(name)
}

// resolver holds where Resolve looks, so tests can point it elsewhere.
type resolver struct {
	path    []string // $PATH
	libPath []string // $LD_LIBRARY_PATH, then ld.so.conf, then the defaults
}

// Directories the dynamic loader searches after ld.so.conf's.
var defaultLibDirs = []string{
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
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
	lookups := []func(string) string{r.command, r.library}
	if strings.Contains(name, ".so") {
		slices.Reverse(lookups)
	}
	for _, look := range lookups {
		if p := look(name); p != "" {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: no such command in $PATH and no such library where the dynamic loader looks: %w", name, ErrNotFound)
}

func (r *resolver) command(name string) string {
	for _, dir := range r.path {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func (r *resolver) library(name string) string {
	candidates := []string{name}
	if !strings.Contains(name, ".so") {
		candidates = append(candidates, name+".so")
	}
	for _, dir := range r.libPath {
		for _, c := range candidates {
			p := filepath.Join(dir, c)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p
			}
			// libc.so may be missing (no -dev package) or be a
			// linker script; the versioned file is what is mapped.
			if strings.HasSuffix(c, ".so") {
				if p := versioned(dir, c); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// versioned finds base.N... in dir, preferring the shortest name: the
// soname (libc.so.6) rather than a full version (libfoo.so.1.2.3), which
// is what the soname links to anyway.
func versioned(dir, base string) string {
	matches, _ := filepath.Glob(filepath.Join(dir, base) + ".[0-9]*")
	var best string
	for _, m := range matches {
		if st, err := os.Stat(m); err != nil || !st.Mode().IsRegular() {
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
