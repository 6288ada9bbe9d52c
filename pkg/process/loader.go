package process

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// DebugState is the function the dynamic loader calls after each change
// to its list of loaded objects, for debuggers (r_debug.r_brk): dlopen
// calls it once a library is mapped, before the library runs. sdtattach
// stops the processes it follows there with a uprobe, so a tracer that
// dies badly can leave a breakpoint on it, as on a probe site.
const DebugState = "_dl_debug_state"

// ErrNoHook is matched by the error of LoaderHook for a process whose
// loader has no DebugState: a kernel thread, which maps nothing, or a
// program that is its own loader without naming it in its symbols (a
// stripped static program, a Go program).
var ErrNoHook = errors.New("no " + DebugState)

// A Hook is the loader's DebugState in a process.
type Hook struct {
	// Object holds the function: the dynamic loader or, for a program
	// with none, the program itself (glibc's static programs carry a
	// loader of their own for dlopen).
	Object  *Object
	Machine elf.Machine
	Value   uint64 // the function's address in the file
	Offset  uint64 // its file offset: where a uprobe on it attaches
	Addr    uint64 // its run-time address
	// Insn holds the file's bytes at Offset: up to 4, the longest
	// breakpoint.
	Insn []byte
}

// Auxiliary vector entry types (AT_* in elf.h).
const (
	atPHDR = 3 // run-time address of the program's headers
	atBase = 7 // load address of the program interpreter; 0 without one
)

// LoaderHook finds DebugState in the dynamic loader of process pid, the
// one the kernel loaded for it (AT_BASE), or in the program itself when
// it has none. Errors are as for ReadMaps, and ErrNoHook.
func LoaderHook(pid int) (*Hook, error) {
	maps, err := ReadMaps(pid)
	if err != nil {
		return nil, err
	}
	objs := Objects(pid, maps)
	if len(objs) == 0 {
		return nil, fmt.Errorf("process %d maps no file: %w", pid, ErrNoHook)
	}
	// The auxiliary vector is in the words of the program.
	exe, err := elf.Open(procPath(pid, "exe"))
	if err != nil {
		return nil, procError(pid, "read executable", accessRead, err)
	}
	class, order := exe.Class, exe.ByteOrder
	exe.Close()
	b, err := os.ReadFile(procPath(pid, "auxv"))
	if err != nil {
		return nil, procError(pid, "read auxv", accessRead, err)
	}
	aux := parseAuxv(b, class, order)
	at := aux[atBase]
	if at == 0 {
		at = aux[atPHDR]
	}
	var obj *Object
	for i := range objs {
		if objs[i].contains(at) {
			obj = &objs[i]
			break
		}
	}
	if obj == nil {
		return nil, fmt.Errorf("process %d: no file mapped at %#x, the loader's address in its auxiliary vector", pid, at)
	}
	return hookIn(obj)
}

// hookIn finds DebugState in the file of obj.
func hookIn(obj *Object) (*Hook, error) {
	fd, err := obj.Open()
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	f, err := elf.NewFile(fd)
	if err != nil {
		return nil, fmt.Errorf("process %d: %s: %w", obj.Pid, obj.Path, err)
	}
	value, off, ok := symbolOffset(f, DebugState)
	if !ok {
		return nil, fmt.Errorf("process %d: %s: %w", obj.Pid, obj.Path, ErrNoHook)
	}
	addr, ok := obj.Addr(off)
	if !ok {
		return nil, fmt.Errorf("process %d: %s: %s at file offset %#x is not mapped", obj.Pid, obj.Path, DebugState, off)
	}
	insn := make([]byte, 4)
	n, err := fd.ReadAt(insn, int64(off))
	if n == 0 {
		return nil, fmt.Errorf("process %d: %s: read %s: %w", obj.Pid, obj.Path, DebugState, err)
	}
	return &Hook{Object: obj, Machine: f.Machine, Value: value, Offset: off, Addr: addr, Insn: insn[:n]}, nil
}

// symbolOffset returns the address and the file offset of the function
// name, from the dynamic symbols (the loader exports it) or the symbol
// table (a static program).
func symbolOffset(f *elf.File, name string) (value, off uint64, ok bool) {
	for _, read := range []func() ([]elf.Symbol, error){f.DynamicSymbols, f.Symbols} {
		syms, _ := read()
		for _, s := range syms {
			if s.Name != name || elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF {
				continue
			}
			value = s.Value
			if f.Machine == elf.EM_ARM {
				value &^= 1 // the Thumb bit
			}
			for _, p := range f.Progs {
				if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && value >= p.Vaddr && value-p.Vaddr < p.Filesz {
					return value, value - p.Vaddr + p.Off, true
				}
			}
		}
	}
	return 0, 0, false
}

// parseAuxv returns the entries of an auxiliary vector, as
// /proc/PID/auxv holds it, by type.
func parseAuxv(b []byte, class elf.Class, order binary.ByteOrder) map[uint64]uint64 {
	w := 8
	word := order.Uint64
	if class == elf.ELFCLASS32 {
		w = 4
		word = func(b []byte) uint64 { return uint64(order.Uint32(b)) }
	}
	aux := make(map[uint64]uint64)
	for ; len(b) >= 2*w; b = b[2*w:] {
		t := word(b)
		if t == 0 { // AT_NULL
			break
		}
		aux[t] = word(b[w:])
	}
	return aux
}

// Armed reports whether a tracer has patched the function in mem, as
// Read tells it.
func (h *Hook) Armed(mem *Mem) (bool, error) {
	st := h.Read(mem)
	return st.Armed, st.ArmedErr
}

// contains reports whether a mapping of o holds address addr.
func (o *Object) contains(addr uint64) bool {
	for _, m := range o.Mappings {
		if addr >= m.Start && addr < m.End {
			return true
		}
	}
	return false
}
