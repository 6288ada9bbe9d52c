package bpf

import (
	"debug/elf"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// Where the kernel lacks BPF cookies (Linux 5.15), the program finds the
// site of a hit by its address (see by_ip in usdt.h), and the map
// site_ips holds the address of every site attached: in every process,
// the link-time address of a site of an executable that is not
// position-independent (ET_EXEC); in the processes traced, the address
// where each maps the file's site, read from its maps: the process of
// Options.PID, or with Options.Cgroup those Relocate is given. A
// position-independent file attached in every process has no single
// address, and is refused: Attach's error matches ErrNoCookies.
//
// An address names one site. Two executables not position-independent
// that have sites at the same address clash, and the second is refused;
// so is a file whose sites the process of Options.PID maps where another
// site is. Where two processes of the cgroup map different sites at the
// same address, which of them a hit there is of cannot be told: the
// address is left out of site_ips, its hits skipped, and Relocate says so.

// linkTime is the process that holds the link-time addresses of the
// sites of executables not position-independent, in every process.
const linkTime = 0

// cgroupAddrs is the most addresses site_ips has room for beyond two per
// site, with Options.Cgroup, up to six per site: each process of the
// cgroup may map a file at its own address. The map is allocated whole,
// about 64 bytes an entry.
const cgroupAddrs = 1 << 16

// A placement is a file whose sites have an address in each process that
// maps them, read from its maps (see Relocate).
type placement struct {
	path    string
	id      process.FileID
	first   int      // number of the first site
	offsets []uint64 // file offsets, by site
}

// ByAddress reports whether the program tells the sites apart by their
// address, where the kernel lacks BPF cookies; the sites of a
// position-independent file then need Relocate after a process traced
// maps the file anew.
func (p *Program) ByAddress() bool { return p.byIP }

// place stores the addresses of sites, numbered from first, of the file
// path in site_ips, before they are attached. It returns a function that
// undoes it, for an attach that failed.
func (p *Program) place(path string, first int, sites []Site) (undo func(), err error) {
	offsets := make([]uint64, len(sites))
	for i := range sites {
		offsets[i] = sites[i].Offset
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	exec := f.Type == elf.ET_EXEC
	var addrs map[uint64]uint32
	if exec {
		addrs, err = linkAddrs(f, first, offsets)
	}
	f.Close()
	if err != nil {
		return nil, err
	}
	undo = func() { p.drop(first, len(sites)) }
	if exec {
		if err := p.free(path, addrs); err != nil {
			return nil, err
		}
		all := make(map[uint64]uint32, len(p.procs[linkTime])+len(addrs))
		for a, n := range p.procs[linkTime] {
			all[a] = n
		}
		for a, n := range addrs {
			all[a] = n
		}
		if err := p.hold(linkTime, all); err != nil {
			undo()
			return nil, err
		}
		return undo, nil
	}
	if p.pid == 0 && !p.cgroup {
		return nil, fmt.Errorf("%w: a position-independent file is told apart from others by the address of its sites only in the processes traced, given by pid or cgroup: %w", ErrNoCookies, ErrNotSupported)
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, err
	}
	pl := &placement{path: path, id: process.FileID{Dev: st.Dev, Inode: st.Ino}, first: first, offsets: offsets}
	p.placed = append(p.placed, pl)
	undo = func() {
		p.placed = slices.DeleteFunc(p.placed, func(q *placement) bool { return q == pl })
		p.drop(first, len(sites))
	}
	if p.pid == 0 {
		return undo, nil // the cgroup's processes: Relocate gives them
	}
	mm, err := process.ReadMaps(p.pid)
	if err != nil {
		undo()
		return nil, err
	}
	addrs = addrsIn([]*placement{pl}, mm)
	if err := p.free(path, addrs); err != nil {
		undo()
		return nil, err
	}
	for a, n := range p.procs[p.pid] {
		addrs[a] = n
	}
	if err := p.hold(p.pid, addrs); err != nil {
		undo()
		return nil, err
	}
	return undo, nil
}

// free returns a clash if a site other than the one addrs gives is at
// one of its addresses.
func (p *Program) free(path string, addrs map[uint64]uint32) error {
	for _, a := range sortedKeys(addrs) {
		for n := range p.held[a] {
			if n != addrs[a] {
				return clash(path, a, n)
			}
		}
	}
	return nil
}

// clash is the error of a site at address a, where site n is already.
func clash(path string, a uint64, n uint32) error {
	return fmt.Errorf("%w: a site of %s at %#x, where site %d is: %w", ErrNoCookies, path, a, n, ErrNotSupported)
}

// linkAddrs returns the link-time addresses of the sites at offsets of
// an executable, numbered from first: in its segment that holds them.
func linkAddrs(f *elf.File, first int, offsets []uint64) (map[uint64]uint32, error) {
	addrs := make(map[uint64]uint32, len(offsets))
	for i, off := range offsets {
		found := false
		for _, ph := range f.Progs {
			if ph.Type == elf.PT_LOAD && off >= ph.Off && off-ph.Off < ph.Filesz {
				addrs[ph.Vaddr+(off-ph.Off)] = uint32(first + i)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("site at file offset %#x: in no segment", off)
		}
	}
	return addrs, nil
}

// addrsIn returns the addresses of the sites of pls in the executable
// mappings of their files among mm, as the kernel places a uprobe's
// breakpoints; a site the process does not map has none.
func addrsIn(pls []*placement, mm []process.Mapping) map[uint64]uint32 {
	addrs := make(map[uint64]uint32)
	for _, pl := range pls {
		for i, off := range pl.offsets {
			for _, m := range mm {
				if m.Dev == pl.id.Dev && m.Inode == pl.id.Inode && m.Executable() && off >= m.Offset && off-m.Offset < m.End-m.Start {
					addrs[m.Start+(off-m.Offset)] = uint32(pl.first + i)
				}
			}
		}
	}
	return addrs
}

// Relocate puts in the program the addresses of the sites of the
// position-independent files attached where the process of Options.PID
// maps them now: after it mapped a file attached before it did (a
// library of a command stopped at its execve), or mapped one anew
// (dlopen after dlclose). It does nothing unless ByAddress.
func (p *Program) Relocate() error {
	if p.pid == 0 {
		return nil
	}
	return p.RelocateProcess(p.pid)
}

// RelocateProcess is Relocate for process pid, which, with
// Options.Cgroup, is any process of the cgroup: each maps the files at
// addresses of its own, and a process forked maps them where its parent
// did until it executes a program or maps a file anew. Where two
// processes have different sites at one address, the address is left
// out, its hits skipped, and the error says so; the other addresses are
// kept.
func (p *Program) RelocateProcess(pid int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.byIP || len(p.placed) == 0 || p.prog == nil {
		return nil
	}
	return p.relocate(pid)
}

func (p *Program) relocate(pid int) error {
	mm, err := process.ReadMaps(pid)
	if err != nil {
		return fmt.Errorf("relocate: %w", err)
	}
	return p.hold(pid, addrsIn(p.placed, mm))
}

// Retain keeps the addresses of the processes of live, the processes of
// the cgroup now, and forgets those of the others, which have exited:
// it first reads the maps of those of live it has none of, forked by a
// process before it exited, which map what their parent did. Without
// Options.Cgroup it does nothing.
func (p *Program) Retain(live []int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.byIP || !p.cgroup || p.prog == nil {
		return nil
	}
	var errs []error
	known := make(map[int]bool, len(live))
	for _, pid := range live {
		known[pid] = true
		if _, ok := p.procs[pid]; !ok && len(p.placed) > 0 {
			if err := p.relocate(pid); err != nil && !errors.Is(err, process.ErrNoProcess) {
				errs = append(errs, fmt.Errorf("process %d: %w", pid, err))
			}
		}
	}
	for _, pid := range sortedPIDs(p.procs) {
		if pid != linkTime && !known[pid] {
			errs = append(errs, p.hold(pid, nil))
		}
	}
	return errors.Join(errs...)
}

// Unmapped returns the position-independent files attached that no
// process traced maps a site of, where the program tells the sites apart
// by their address: their hits are skipped until Relocate finds them
// mapped.
func (p *Program) Unmapped() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	held := make(map[uint32]bool)
	for pid, addrs := range p.procs {
		if pid == linkTime {
			continue
		}
		for _, n := range addrs {
			held[n] = true
		}
	}
	var paths []string
	for _, pl := range p.placed {
		mapped := false
		for i := range pl.offsets {
			mapped = mapped || held[uint32(pl.first+i)]
		}
		if !mapped {
			paths = append(paths, pl.path)
		}
	}
	return paths
}

// hold makes addrs the addresses of the sites in process pid (linkTime
// for those of every process), in place of those it held, and updates
// site_ips where that changes what an address names. A process whose
// addrs are nil is forgotten; one with none is known to map no site.
func (p *Program) hold(pid int, addrs map[uint64]uint32) error {
	old := p.procs[pid]
	var touched []uint64
	for a, n := range old {
		if m, ok := addrs[a]; !ok || m != n {
			if p.held[a][n]--; p.held[a][n] == 0 {
				delete(p.held[a], n)
			}
			touched = append(touched, a)
		}
	}
	for a, n := range addrs {
		if m, ok := old[a]; !ok || m != n {
			if p.held[a] == nil {
				p.held[a] = make(map[uint32]int)
			}
			p.held[a][n]++
			touched = append(touched, a)
		}
	}
	if addrs == nil {
		delete(p.procs, pid)
	} else {
		p.procs[pid] = addrs
	}
	slices.Sort(touched)
	var errs []error
	for _, a := range slices.Compact(touched) {
		errs = append(errs, p.sync(a))
	}
	return errors.Join(errs...)
}

// sync stores in site_ips the site at address a, or removes a when no
// site or several are there.
func (p *Program) sync(a uint64) error {
	sites := p.held[a]
	if len(sites) == 1 {
		var n uint32
		for n = range sites {
		}
		if m, ok := p.ips[a]; ok && m == n {
			return nil
		}
		if err := p.maps.SiteIPs.Put(a, n); err != nil {
			return fmt.Errorf("store the address of site %d: %w", n, err)
		}
		p.ips[a] = n
		return nil
	}
	if len(sites) == 0 {
		delete(p.held, a)
	}
	if _, ok := p.ips[a]; ok {
		if err := p.maps.SiteIPs.Delete(a); err != nil {
			return fmt.Errorf("remove the address %#x: %w", a, err)
		}
		delete(p.ips, a)
	}
	if len(sites) > 1 {
		ns := make([]uint32, 0, len(sites))
		for n := range sites {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		return fmt.Errorf("%w: sites %d and %d, of processes that map different files there, at %#x: its hits are skipped", ErrNoCookies, ns[0], ns[1], a)
	}
	return nil
}

// drop forgets the addresses of the n sites numbered from first, in
// every process, for an attach that failed.
func (p *Program) drop(first, n int) {
	for _, pid := range sortedPIDs(p.procs) {
		addrs := make(map[uint64]uint32, len(p.procs[pid]))
		for a, s := range p.procs[pid] {
			if int(s) < first || int(s) >= first+n {
				addrs[a] = s
			}
		}
		p.hold(pid, addrs)
	}
}

func sortedKeys(m map[uint64]uint32) []uint64 {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedPIDs(m map[int]map[uint64]uint32) []int {
	pids := make([]int, 0, len(m))
	for pid := range m {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}
