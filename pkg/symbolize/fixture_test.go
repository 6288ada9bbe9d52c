package symbolize_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// requireTools skips t unless every tool is on PATH.
func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("requires %s (%v)", tool, err)
		}
	}
}

// run runs a command in dir and returns its stdout, failing t on error.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

// writeFile writes files into dir, named by the keys of files.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// copyFile copies src to dst, keeping it executable.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// nmSym is one line of nm -S: the ground truth symbols are checked
// against.
type nmSym struct {
	name       string
	addr, size uint64
	kind       byte // T, t, D, ...
}

// nm lists the defined symbols of path with their sizes, as nm reads
// them; args such as -D or -C are passed on.
func nm(t *testing.T, path string, args ...string) []nmSym {
	t.Helper()
	out := run(t, "", "nm", append([]string{"--defined-only", "-S"}, append(args, path)...)...)
	var syms []nmSym
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		if len(f) != 4 {
			continue // no size
		}
		addr, err1 := strconv.ParseUint(f[0], 16, 64)
		size, err2 := strconv.ParseUint(f[1], 16, 64)
		if err1 != nil || err2 != nil || len(f[2]) != 1 {
			continue
		}
		syms = append(syms, nmSym{name: f[3], addr: addr, size: size, kind: f[2][0]})
	}
	return syms
}

// nmFunc returns the function name of path as nm lists it, failing t
// when there is not exactly one.
func nmFunc(t *testing.T, syms []nmSym, name string) nmSym {
	t.Helper()
	var found []nmSym
	for _, s := range syms {
		if s.name == name && (s.kind == 'T' || s.kind == 't') {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("nm lists %d functions %q, want 1", len(found), name)
	}
	return found[0]
}
