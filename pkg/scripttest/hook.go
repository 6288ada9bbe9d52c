package scripttest

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// loaderHookArmed reports whether _dl_debug_state, in the dynamic loader
// process pid maps, holds other than the loader file's first byte there:
// a tracer's breakpoint. A static program has no loader: false.
func loaderHookArmed(pid int) (bool, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	exe, err := elf.Open(proc + "/exe")
	if err != nil {
		return false, err
	}
	defer exe.Close()
	interp := ""
	for _, p := range exe.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return false, err
			}
			interp = proc + "/root" + string(bytes.TrimRight(b, "\x00"))
		}
	}
	if interp == "" {
		return false, nil
	}
	ld, err := elf.Open(interp)
	if err != nil {
		return false, err
	}
	defer ld.Close()
	off, err := symbolOffset(ld, "_dl_debug_state")
	if err != nil {
		return false, fmt.Errorf("%s: %w", interp, err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(interp, &st); err != nil {
		return false, err
	}
	addr, err := mappedAt(pid, st.Ino, off)
	if err != nil {
		return false, err
	}
	want := make([]byte, 1)
	f, err := os.Open(interp)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if _, err := f.ReadAt(want, int64(off)); err != nil {
		return false, err
	}
	mem, err := os.Open(proc + "/mem")
	if err != nil {
		return false, err
	}
	defer mem.Close()
	got := make([]byte, 1)
	if _, err := mem.ReadAt(got, int64(addr)); err != nil {
		return false, err
	}
	return got[0] != want[0], nil
}

// symbolOffset returns the file offset of a function of f.
func symbolOffset(f *elf.File, name string) (uint64, error) {
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	for _, s := range append(syms, dyn...) {
		if s.Name != name {
			continue
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && s.Value >= p.Vaddr && s.Value < p.Vaddr+p.Filesz {
				return s.Value - p.Vaddr + p.Off, nil
			}
		}
	}
	return 0, fmt.Errorf("symbol %s: not found", name)
}

// mappedAt returns the run-time address of file offset off of the file
// of inode ino in process pid.
func mappedAt(pid int, ino, off uint64) (uint64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[4] != strconv.FormatUint(ino, 10) {
			continue
		}
		start, end, _ := strings.Cut(fs[0], "-")
		lo, _ := strconv.ParseUint(start, 16, 64)
		hi, _ := strconv.ParseUint(end, 16, 64)
		mo, _ := strconv.ParseUint(fs[2], 16, 64)
		if off >= mo && off < mo+(hi-lo) {
			return lo + off - mo, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("process %d: offset %#x of inode %d not mapped", pid, off, ino)
}
