package symbolize_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// liveC prints the run-time addresses of its own functions, of a libc
// function, of a return address inside inner, and of anonymous executable
// memory standing for JIT-compiled code, then waits to be killed.
const liveC = `#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
void *__attribute__((noinline)) where(void) { return __builtin_return_address(0); }
void *__attribute__((noinline)) inner(void) { void *r = where(); __asm__ volatile("" ::: "memory"); return r; }
int main(void) {
	void *jit = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("inner %p\nret %p\ngetpid %p\njit %p\n", (void *)inner, inner(), (void *)getpid, jit);
	fflush(stdout);
	pause();
	return 0;
}
`

// startLive starts the program at path and returns its pid and the
// addresses it printed.
func startLive(t *testing.T, path string) (int, map[string]uint64) {
	t.Helper()
	cmd := exec.Command(path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addrs := map[string]uint64{}
	sc := bufio.NewScanner(out)
	for len(addrs) < 4 && sc.Scan() {
		name, hex, _ := strings.Cut(sc.Text(), " ")
		a, err := strconv.ParseUint(strings.TrimPrefix(hex, "0x"), 16, 64)
		if err != nil {
			t.Fatalf("fixture printed %q: %v", sc.Text(), err)
		}
		addrs[name] = a
	}
	if len(addrs) < 4 {
		t.Fatalf("fixture printed %v", addrs)
	}
	return cmd.Process.Pid, addrs
}

func TestProcess(t *testing.T) {
	requireTools(t, "gcc", "nm", "objcopy", "strip")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.c": liveC})
	run(t, dir, "gcc", "-O1", "-g", "-Wl,--build-id", "-o", "live", "live.c")
	prog := filepath.Join(dir, "live")
	syms := nm(t, prog)
	inner := nmFunc(t, syms, "inner")
	full, err := symbolize.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name string
		// prepare makes the file to run and returns its path, the
		// debug directories to symbolize with, and a function to call
		// once it runs.
		prepare func(t *testing.T) (path string, debugDirs []string, started func())
	}{
		{"symtab", func(t *testing.T) (string, []string, func()) {
			return prog, []string{}, func() {}
		}},
		{"stripped with a debug file by build-id", func(t *testing.T) (string, []string, func()) {
			d, root := t.TempDir(), t.TempDir()
			debug := filepath.Join(root, ".build-id", full.BuildID[:2], full.BuildID[2:]+".debug")
			if err := os.MkdirAll(filepath.Dir(debug), 0o755); err != nil {
				t.Fatal(err)
			}
			run(t, d, "objcopy", "--only-keep-debug", prog, debug)
			run(t, d, "strip", "--strip-all", "-o", "live", prog)
			return filepath.Join(d, "live"), []string{root}, func() {}
		}},
		{"deleted once started", func(t *testing.T) (string, []string, func()) {
			if euid := os.Geteuid(); euid != 0 {
				t.Skipf("requires root for /proc/PID/map_files (euid %d)", euid)
			}
			p := filepath.Join(t.TempDir(), "live")
			copyFile(t, prog, p)
			return p, []string{}, func() {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path, dirs, started := tt.prepare(t)
			pid, addrs := startLive(t, path)
			started()
			cache := symbolize.NewCache(&symbolize.Options{DebugDirs: dirs}, 0)
			p, err := symbolize.NewProcess(pid, cache)
			if err != nil {
				t.Fatal(err)
			}
			f := p.Frame(addrs["inner"])
			if f.Sym != "inner" || f.Off != 0 || f.BuildID != full.BuildID || !strings.HasPrefix(f.File, path) {
				t.Errorf("Frame(inner %#x) = %+v (%v), want inner+0 in %s, build-id %s", addrs["inner"], f, p.ObjectErr(addrs["inner"]), path, full.BuildID)
			}
			// The file offset, and the load bias nm's address gives,
			// agree with the mapping.
			bias := addrs["inner"] - inner.addr
			if want := addrs["ret"] - addrs["inner"]; p.Frame(addrs["ret"]).Off != want || want == 0 || want >= inner.size {
				t.Errorf("Frame(ret %#x) = %+v, want inner+%d", addrs["ret"], p.Frame(addrs["ret"]), want)
			}
			if got, want := p.Frame(addrs["ret"]).FileOffset, fileOffset(t, prog, addrs["ret"]-bias); got != want {
				t.Errorf("Frame(ret).FileOffset = %#x, want %#x", got, want)
			}

			// getpid in libc: one of the names .dynsym gives its
			// address.
			g := p.Frame(addrs["getpid"])
			if g.File == "" {
				t.Fatalf("Frame(getpid %#x) = %+v, want libc's file", addrs["getpid"], g)
			}
			names := map[string]bool{}
			var getpid uint64
			libc := nm(t, fmt.Sprintf("/proc/%d/root%s", pid, g.File), "-D")
			for _, s := range libc {
				if s.name == "getpid" || strings.HasPrefix(s.name, "getpid@") {
					getpid = s.addr
				}
			}
			for _, s := range libc {
				if s.addr == getpid {
					name, _, _ := strings.Cut(s.name, "@")
					names[name] = true
				}
			}
			if !names[g.Sym] || g.Off != 0 {
				t.Errorf("Frame(getpid %#x) = %+v, want one of %v +0", addrs["getpid"], g, names)
			}

			// Anonymous memory has no symbol until the perf map names
			// it.
			jit := addrs["jit"]
			if f := p.Frame(jit + 4); f.Sym != "" {
				t.Errorf("Frame(jit+4) = %+v before the perf map", f)
			}
			perfMap := filepath.Join("/proc", strconv.Itoa(pid), "root", p.PerfMapPath())
			t.Cleanup(func() { os.Remove(perfMap) })
			text := fmt.Sprintf("%x 40 jitted_a\n%x 40 LazyCompile:*b script.js:1\n", jit, jit+0x40)
			if err := os.WriteFile(perfMap, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := p.Refresh(); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				addr uint64
				sym  string
				off  uint64
			}{{jit, "jitted_a", 0}, {jit + 0x3f, "jitted_a", 0x3f}, {jit + 0x44, "LazyCompile:*b script.js:1", 4}, {jit + 0x80, "", 0}} {
				if f := p.Frame(c.addr); f.Sym != c.sym || f.Off != c.off {
					t.Errorf("Frame(%#x) = %+v (%v), want %q+%d", c.addr, f, p.PerfMapErr(), c.sym, c.off)
				}
			}
		})
	}
}
