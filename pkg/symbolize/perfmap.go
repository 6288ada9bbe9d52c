package symbolize

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A PerfMap is the symbol table a JIT compiler writes for perf to
// /tmp/perf-PID.map: the JVM with a perf map agent or
// -XX:+DumpPerfMapAtExit, Node with --perf-basic-prof, Python 3.12 with
// -X perf. Each line is "START SIZE NAME", START and SIZE in hex.
type PerfMap struct {
	syms symbols
}

// ReadPerfMap parses a perf map. Lines that do not parse, such as the
// last line of a map a JIT is writing, are skipped. Where code was
// compiled again at an address, the later line names it.
func ReadPerfMap(r io.Reader) (*PerfMap, error) {
	var syms []Symbol
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		start, rest, ok1 := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		size, name, ok2 := strings.Cut(strings.TrimLeft(rest, " "), " ")
		if !ok1 || !ok2 || name == "" {
			continue
		}
		a, err1 := strconv.ParseUint(strings.TrimPrefix(start, "0x"), 16, 64)
		n, err2 := strconv.ParseUint(strings.TrimPrefix(size, "0x"), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		syms = append(syms, Symbol{Name: name, Addr: a, Size: n, Table: PerfMapFile})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read perf map: %w", err)
	}
	// Later lines first among those at one address, so that lookup
	// finds them first; the stable sort keeps that order.
	for i, j := 0, len(syms)-1; i < j; i, j = i+1, j-1 {
		syms[i], syms[j] = syms[j], syms[i]
	}
	return &PerfMap{syms: sortSymbols(syms)}, nil
}

// Lookup returns the symbol that contains the run-time address addr, and
// addr's offset into it.
func (m *PerfMap) Lookup(addr uint64) (sym Symbol, off uint64, ok bool) {
	if m == nil {
		return Symbol{}, 0, false
	}
	s, ok := m.syms.lookup(addr)
	if !ok {
		return Symbol{}, 0, false
	}
	return s, addr - s.Addr, true
}

// Len returns the number of entries of the map.
func (m *PerfMap) Len() int { return len(m.syms) }
