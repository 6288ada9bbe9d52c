package process

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testdemo"
)

func TestParseAuxv(t *testing.T) {
	le64 := func(v ...uint64) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
		return b
	}
	le32 := func(v ...uint32) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		return b
	}
	be64 := func(v ...uint64) []byte {
		var b []byte
		for _, x := range v {
			b = binary.BigEndian.AppendUint64(b, x)
		}
		return b
	}
	for _, tt := range []struct {
		name  string
		b     []byte
		class elf.Class
		order binary.ByteOrder
		want  map[uint64]uint64
	}{
		{"64-bit", le64(3, 0x400040, 7, 0x7f0000000000, 0, 0), elf.ELFCLASS64, binary.LittleEndian, map[uint64]uint64{atPHDR: 0x400040, atBase: 0x7f0000000000}},
		{"32-bit", le32(3, 0x8048034, 7, 0xf7f00000, 0, 0), elf.ELFCLASS32, binary.LittleEndian, map[uint64]uint64{atPHDR: 0x8048034, atBase: 0xf7f00000}},
		{"big-endian", be64(7, 0x3ff80000000, 0, 0), elf.ELFCLASS64, binary.BigEndian, map[uint64]uint64{atBase: 0x3ff80000000}},
		{"after AT_NULL", le64(7, 1, 0, 0, 3, 2), elf.ELFCLASS64, binary.LittleEndian, map[uint64]uint64{atBase: 1}},
		{"truncated", append(le64(3, 5), 7, 0, 0), elf.ELFCLASS64, binary.LittleEndian, map[uint64]uint64{atPHDR: 5}},
		{"empty", nil, elf.ELFCLASS64, binary.LittleEndian, map[uint64]uint64{}},
	} {
		if got := parseAuxv(tt.b, tt.class, tt.order); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseAuxv(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestHookInNoSymbol checks that a file that does not name DebugState has
// no hook.
func TestHookInNoSymbol(t *testing.T) {
	demo := testdemo.Source()
	obj := &Object{Pid: os.Getpid(), Path: demo, HostPath: demo}
	if _, err := hookIn(obj); !errors.Is(err, ErrNoHook) {
		t.Errorf("hookIn(%s) = %v, want ErrNoHook", demo, err)
	}
}

// TestLoaderHook finds the hook of a running program, whose loader the
// kernel loaded, and of the loader run as the program: the address found
// is the one the loader gives debuggers, r_debug.r_brk.
func TestLoaderHook(t *testing.T) {
	prog, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("requires sleep")
	}
	interp := interpreter(t, prog)
	ld, err := filepath.EvalSymlinks(interp)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		argv []string
	}{
		{"dynamic", []string{prog, "60"}},
		{"loader", []string{ld, prog, "60"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pid := startAndWait(t, tt.argv, ld, prog)
			h, err := LoaderHook(pid)
			var pe *PermissionError
			if errors.As(err, &pe) {
				t.Skipf("requires the right to read process %d: %v", pid, err)
			}
			if err != nil {
				t.Fatalf("LoaderHook(%d): %v", pid, err)
			}
			if h.Object.Path != ld {
				t.Errorf("LoaderHook(%d).Object.Path = %q, want the loader %q", pid, h.Object.Path, ld)
			}
			want, err := debugStateOf(h, ld)
			if err != nil {
				t.Skipf("cannot read r_debug.r_brk: %v", err)
			}
			if h.Addr != want {
				t.Errorf("LoaderHook(%d).Addr = %#x, want r_debug.r_brk %#x", pid, h.Addr, want)
			}
		})
	}
}

// TestLoaderHookStatic finds the hook of a statically linked program,
// its own loader, in its symbol table: the process holds there what the
// file does.
func TestLoaderHookStatic(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("requires gcc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "pause.c")
	if err := os.WriteFile(src, []byte("#include <unistd.h>\nint main(void) { pause(); return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "pause")
	if out, err := exec.Command("gcc", "-static", "-o", exe, src).CombinedOutput(); err != nil {
		t.Skipf("requires gcc -static (a static C library): %v\n%s", err, out)
	}
	pid := startAndWait(t, []string{exe}, exe)
	h, err := LoaderHook(pid)
	var pe *PermissionError
	if errors.As(err, &pe) {
		t.Skipf("requires the right to read process %d: %v", pid, err)
	}
	if err != nil {
		t.Fatalf("LoaderHook(%d): %v", pid, err)
	}
	real, _ := filepath.EvalSymlinks(exe)
	if h.Object.Path != real {
		t.Errorf("LoaderHook(%d).Object.Path = %q, want the program %q", pid, h.Object.Path, real)
	}
	mem, err := OpenMem(pid, false)
	if err != nil {
		t.Skipf("requires the right to read the memory of process %d: %v", pid, err)
	}
	defer mem.Close()
	live := make([]byte, len(h.Insn))
	if _, err := mem.ReadAt(live, int64(h.Addr)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(live, h.Insn) || len(h.Insn) != 4 {
		t.Errorf("process %d holds % x at %#x, the file % x at %#x; want the same 4 bytes", pid, live, h.Addr, h.Insn, h.Offset)
	}
}

// TestLoaderHookKernelThread checks that a kernel thread, which maps
// nothing, has no hook.
func TestLoaderHookKernelThread(t *testing.T) {
	if b, err := os.ReadFile("/proc/2/comm"); err != nil || string(b) != "kthreadd\n" {
		t.Skip("requires kthreadd as process 2 (the initial PID namespace)")
	}
	if _, err := LoaderHook(2); !errors.Is(err, ErrNoHook) {
		t.Errorf("LoaderHook(2) = %v, want ErrNoHook", err)
	}
}

// TestHookArmed checks Hook.Armed on memory that holds the file's
// instruction, a breakpoint, and another instruction.
func TestHookArmed(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tt := range []struct {
		m     elf.Machine
		insn  []byte
		live  []byte
		armed bool
	}{
		{elf.EM_X86_64, []byte{0xc3, 0x0f, 0x1f}, []byte{0xc3, 0x0f, 0x1f, 0x00}, false},
		{elf.EM_X86_64, []byte{0xc3, 0x0f, 0x1f}, []byte{0xcc, 0x0f, 0x1f, 0x00}, true},
		{elf.EM_X86_64, []byte{0xc3, 0x0f, 0x1f}, []byte{0xe8, 0x0f, 0x1f, 0x00}, true},
		{elf.EM_X86_64, []byte{0xc3, 0x0f, 0x1f}, []byte{0xc3, 0x00, 0x00, 0x00}, false}, // the next instruction is another's
		{elf.EM_AARCH64, []byte{0xc0, 0x03, 0x5f, 0xd6}, []byte{0xc0, 0x03, 0x5f, 0xd6}, false},
		{elf.EM_AARCH64, []byte{0xc0, 0x03, 0x5f, 0xd6}, []byte{0xa0, 0x00, 0x20, 0xd4}, true},
		{elf.EM_X86_64, []byte{0xcc, 0x90}, []byte{0xcc, 0x90, 0x00, 0x00}, false}, // the file's own
	} {
		if _, err := f.WriteAt(tt.live, 16); err != nil {
			t.Fatal(err)
		}
		mem := &Mem{pid: os.Getpid(), f: f}
		h := &Hook{Machine: tt.m, Addr: 16, Insn: tt.insn}
		if got, err := h.Armed(mem); got != tt.armed || err != nil {
			t.Errorf("Hook{%v, % x}.Armed(% x) = %v, %v, want %v", tt.m, tt.insn, tt.live, got, err, tt.armed)
		}
	}
}

// interpreter returns the PT_INTERP of the program at path.
func interpreter(t *testing.T, path string) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(p.Open())
			if err != nil {
				t.Fatal(err)
			}
			return string(bytes.TrimRight(b, "\x00"))
		}
	}
	t.Skipf("requires %s to be dynamically linked", path)
	return ""
}

// startAndWait starts argv until the end of the test and returns its pid
// once it maps the files mapped and sleeps.
func startAndWait(t *testing.T, argv []string, mapped ...string) int {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		maps, err := ReadMaps(pid)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, f := range mapped {
			real, _ := filepath.EvalSymlinks(f)
			if slices.ContainsFunc(maps, func(m Mapping) bool { return m.Path == real }) {
				seen++
			}
		}
		if seen == len(mapped) && strings.Contains(procStatus(pid), "State:\tS") {
			return pid
		}
	}
	t.Fatalf("%q did not map %q and sleep in 10s", argv, mapped)
	return 0
}

func procStatus(pid int) string {
	b, _ := os.ReadFile(procPath(pid, "status"))
	return string(b)
}

// debugStateOf reads r_debug.r_brk, the address of DebugState that the
// loader gives debuggers, from the process of h, whose loader is the file
// ld: _r_debug is at the same distance from h.Addr as in the file.
func debugStateOf(h *Hook, ld string) (uint64, error) {
	f, err := elf.Open(ld)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if f.Class != elf.ELFCLASS64 {
		return 0, errors.New("a 64-bit loader is read only")
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return 0, err
	}
	for _, s := range syms {
		if s.Name != "_r_debug" {
			continue
		}
		mem, err := OpenMem(h.Object.Pid, false)
		if err != nil {
			return 0, err
		}
		defer mem.Close()
		// struct r_debug { int r_version; struct link_map *r_map;
		// ElfW(Addr) r_brk; ... }
		var b [8]byte
		if _, err := mem.ReadAt(b[:], int64(h.Addr-h.Value+s.Value+16)); err != nil {
			return 0, err
		}
		return f.ByteOrder.Uint64(b[:]), nil
	}
	return 0, errors.New("no _r_debug in " + ld)
}
