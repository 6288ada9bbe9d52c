package dlopen

import (
	"bytes"
	"debug/elf"
	"fmt"
	"strconv"
)

// DebugState is the function the dynamic loader calls after each change
// to its list of loaded objects, for debuggers (r_debug.r_brk): dlopen
// calls it once the new objects are mapped and relocated, before their
// constructors run and before it returns. Every glibc has it, also one
// built without its own SDT probes (rtld:map_complete).
const DebugState = "_dl_debug_state"

// Loader returns the file whose DebugState process pid calls on dlopen:
// its dynamic loader, as a path through /proc/PID/root, or, for a
// statically linked program, which is its own loader, the program when
// its symbols name DebugState (a libc that has dlopen in static
// programs). It returns "" for a static program without: it loads no
// library, or none that can be followed (stripped).
func Loader(pid int) (string, error) {
	exe := "/proc/" + strconv.Itoa(pid) + "/exe"
	f, err := elf.Open(exe)
	if err != nil {
		return "", fmt.Errorf("follow dlopen: %w", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return "", fmt.Errorf("follow dlopen: interpreter: %w", err)
		}
		return "/proc/" + strconv.Itoa(pid) + "/root" + string(bytes.TrimRight(b, "\x00")), nil
	}
	if hasSymbol(f, DebugState) {
		return exe, nil
	}
	return "", nil
}

// hasSymbol reports whether the symbol table of f, or its dynamic one,
// names a function called name.
func hasSymbol(f *elf.File, name string) bool {
	for _, read := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		syms, _ := read()
		for _, s := range syms {
			if s.Name == name && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
				return true
			}
		}
	}
	return false
}
