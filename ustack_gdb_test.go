package sdtkit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testenv"
)

// gdbHits is how many hits of testdata/gdbstack/stack.c are compared:
// each of its three paths four times, the recursion at each depth.
const gdbHits = 12

// TestUstackGDB compares the stacks sdtattach gives at a probe, frame by
// frame, with gdb's bt stopped at the probe's address, for every hit of
// testdata/gdbstack/stack.c (a PIE whose frameless leaf is reached by
// call chains that differ from hit to hit, some through a shared
// library); the hits carry a sequence number, which pairs them. Built
// at -O2 without frame pointers, --ustack=dwarf must give gdb's frames
// to the last (with past-main on: the C library's and _start). Built
// with frame pointers, and leaf given a frame (-DFRAMED), --ustack must
// give them down to main: below it, the C library has none.
func TestUstackGDB(t *testing.T) {
	testenv.RequireUprobes(t)
	if testenv.KernelBefore(5, 15) {
		t.Skip("requires kernel 5.15 (BPF cookies)")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("requires x86-64 (the fixture's stacks are checked there)")
	}
	for _, tool := range []string{"gcc", "gdb"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("requires %s", tool)
		}
	}
	if err := exec.Command("sh", "-c", "echo '#include <sys/sdt.h>' | gcc -E -x c - >/dev/null 2>&1").Run(); err != nil {
		t.Skip("requires sys/sdt.h (package systemtap-sdt-dev)")
	}
	bin := buildTools(t)
	for _, tt := range []struct {
		name   string
		fp     string // gcc's frame-pointer flags
		ustack string
		whole  bool // the whole stack, not down to main only
	}{
		{"dwarf", "-fomit-frame-pointer", "--ustack=dwarf", true},
		{"fp", "-fno-omit-frame-pointer -DFRAMED", "--ustack", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			dir := t.TempDir()
			prog := filepath.Join(dir, "stack")
			src, _ := filepath.Abs("testdata/gdbstack")
			flags := append([]string{"-O2", "-fno-optimize-sibling-calls"}, strings.Fields(tt.fp)...)
			output(t, ctx, "gcc", append(flags, "-shared", "-fPIC", "-o", filepath.Join(dir, "libstacklib.so"), filepath.Join(src, "stacklib.c"))...)
			output(t, ctx, "gcc", append(flags, "-o", prog, filepath.Join(src, "stack.c"), "-L"+dir, "-lstacklib", "-Wl,-rpath,"+dir)...)

			want := gdbStacks(t, ctx, bin, prog)
			out := output(t, ctx, filepath.Join(bin, "sdtattach"), tt.ustack, "-c", prog+" "+strconv.Itoa(gdbHits), "gdbstack:hit")
			got := sdtattachStacks(t, out)
			if len(got) != gdbHits {
				t.Fatalf("sdtattach %s: %d hits, want %d:\n%s", tt.ustack, len(got), gdbHits, out)
			}
			for seq := range int64(gdbHits) {
				w, g := want[seq], got[seq]
				if !tt.whole {
					main := slices.IndexFunc(w, func(f stackFrame) bool { return f.sym == "main" })
					if main < 0 {
						t.Fatalf("hit %d: gdb's stack has no main:\n%s", seq, listFrames(w))
					}
					w = w[:main+1]
					g = g[:min(len(g), len(w))]
				}
				if seq == 1 {
					t.Logf("hit 1, compared:\n%s", listFrames(g))
				}
				if !sameFrames(w, g) {
					t.Errorf("hit %d: sdtattach %s gives\n%s\ngdb's bt gives\n%s", seq, tt.ustack, listFrames(g), listFrames(w))
				}
			}
		})
	}
}

// A stackFrame is a return address (the probe's address innermost) placed in
// the file mapped there.
type stackFrame struct {
	file string
	off  uint64 // the file offset
	sym  string // "" where unknown
}

func (f stackFrame) String() string {
	return fmt.Sprintf("%s %s+%#x", orElse(f.sym, "??"), filepath.Base(f.file), f.off)
}

func orElse(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

func listFrames(fs []stackFrame) string {
	var b strings.Builder
	for i, f := range fs {
		fmt.Fprintf(&b, "\t#%d %v\n", i, f)
	}
	return b.String()
}

// sameFrames reports whether the stacks have the same frames: the same
// file offsets in the same files, and the same names where both know
// the name of a frame in the fixture (gdb names the C library's
// functions from its debug information, where aliases may differ).
func sameFrames(want, got []stackFrame) bool {
	if len(want) != len(got) {
		return false
	}
	for i, w := range want {
		g := got[i]
		if w.file != g.file || w.off != g.off {
			return false
		}
		if strings.Contains(w.file, "stack") && w.sym != g.sym {
			return false
		}
	}
	return true
}

// gdbStacks runs prog under gdb, which stops at the address of its probe
// gdbstack:hit, as sdtlist gives it, at every hit, and returns the
// frames of bt there by the hit's sequence number.
func gdbStacks(t *testing.T, ctx context.Context, bin, prog string) map[int64][]stackFrame {
	t.Helper()
	var site struct {
		PCOffset uint64 `json:"pc_offset"`
	}
	if err := json.Unmarshal(output(t, ctx, filepath.Join(bin, "sdtlist"), prog, "gdbstack:hit"), &site); err != nil {
		t.Fatalf("sdtlist: %v", err)
	}
	// gdb runs its programs with the addresses of the mappings not
	// randomized: the program is where it was at its first instruction
	// in an earlier run.
	maps := gdbMappings(output(t, ctx, "gdb", "-nx", "-batch", "-ex", "starti", "-ex", "info proc mappings", prog))
	addr, ok := maps.addr(prog, site.PCOffset)
	if !ok {
		t.Fatalf("gdb: no mapping of %s holds file offset %#x", prog, site.PCOffset)
	}
	const hit = `printf "hit %ld\n", $_probe_arg0
bt -frame-info location-and-address
`
	script := fmt.Sprintf(`set pagination off
set width 0
set confirm off
set backtrace past-main on
starti
break *%#x
continue
info proc mappings
%scommands 1
silent
%scontinue
end
continue
`, addr, hit, hit)
	cmds := prog + ".gdb"
	if err := os.WriteFile(cmds, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out := output(t, ctx, "gdb", "-nx", "-batch", "-x", cmds, "--args", prog, strconv.Itoa(gdbHits))
	maps = gdbMappings(out)
	stacks := map[int64][]stackFrame{}
	var seq int64 = -1
	bt := regexp.MustCompile(`^#\d+\s+0x([0-9a-f]+) in (\S+) `)
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		line := sc.Text()
		if n, err := fmt.Sscanf(line, "hit %d", &seq); n == 1 && err == nil {
			stacks[seq] = nil
			continue
		}
		m := bt.FindStringSubmatch(line)
		if m == nil || seq < 0 {
			continue
		}
		pc, _ := strconv.ParseUint(m[1], 16, 64)
		f := stackFrame{sym: m[2]}
		if f.sym == "??" {
			f.sym = ""
		}
		f.file, f.off = maps.place(pc)
		stacks[seq] = append(stacks[seq], f)
	}
	if len(stacks) != gdbHits {
		t.Fatalf("gdb stopped at %d hits, want %d:\n%s", len(stacks), gdbHits, out)
	}
	return stacks
}

// gdbMaps are the mappings of gdb's info proc mappings.
type gdbMaps []struct {
	start, end, off uint64
	file            string
}

func gdbMappings(out []byte) gdbMaps {
	var ms gdbMaps
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || !strings.HasPrefix(f[0], "0x") || !strings.HasPrefix(f[len(f)-1], "/") {
			continue
		}
		var m struct {
			start, end, off uint64
			file            string
		}
		var err1, err2, err3 error
		m.start, err1 = strconv.ParseUint(f[0], 0, 64)
		m.end, err2 = strconv.ParseUint(f[1], 0, 64)
		m.off, err3 = strconv.ParseUint(f[3], 0, 64)
		if err1 == nil && err2 == nil && err3 == nil {
			m.file = f[len(f)-1]
			ms = append(ms, m)
		}
	}
	return ms
}

// addr returns the run-time address of file offset off of file.
func (ms gdbMaps) addr(file string, off uint64) (uint64, bool) {
	for _, m := range ms {
		if m.file == file && off >= m.off && off-m.off < m.end-m.start {
			return m.start + off - m.off, true
		}
	}
	return 0, false
}

// place returns the file mapped at pc and its offset there.
func (ms gdbMaps) place(pc uint64) (string, uint64) {
	for _, m := range ms {
		if pc >= m.start && pc < m.end {
			return m.file, pc - m.start + m.off
		}
	}
	return "", pc
}

// sdtattachStacks returns the stacks of sdtattach's events by their
// first argument.
func sdtattachStacks(t *testing.T, out []byte) map[int64][]stackFrame {
	t.Helper()
	stacks := map[int64][]stackFrame{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		var ev struct {
			Args   []int64
			Ustack []struct {
				Sym        string
				File       string
				FileOffset uint64 `json:"file_offset"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("sdtattach: %v: %s", err, sc.Bytes())
		}
		if len(ev.Args) != 1 {
			t.Fatalf("sdtattach: event without one argument: %s", sc.Bytes())
		}
		var fs []stackFrame
		for _, f := range ev.Ustack {
			fs = append(fs, stackFrame{file: f.File, off: f.FileOffset, sym: f.Sym})
		}
		stacks[ev.Args[0]] = fs
	}
	return stacks
}

// output runs a command and returns its standard output; it fails the
// test, with the standard error, when the command fails.
func output(t *testing.T, ctx context.Context, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}
