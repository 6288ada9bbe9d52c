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
// position-independent (ET_EXEC); in the process of Options.PID, the
// address where the process maps the file's site, read from its maps.
// A position-independent file attached in every process has no single
// address, and is refused: Attach's error matches ErrNoCookies.
//
// One Program traces one process, or every process: an address names
// one site in the process of Options.PID, and in every process the
// sites of executables not position-independent, which each process
// maps at their link-time addresses. Only two such executables that
// have sites at the same address clash, which Attach refuses too.

// A placement is a file whose sites were attached in the process of
// Options.PID: their addresses follow its maps (see Relocate).
type placement struct {
	path    string
	id      process.FileID
	first   int      // number of the first site
	offsets []uint64 // file offsets, by site
	addrs   []uint64 // in site_ips for them now
}

// ByAddress reports whether the program tells the sites apart by their
// address, where the kernel lacks BPF cookies; the sites of a file
// attached in the process of Options.PID then need Relocate after the
// process maps the file anew.
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
	if !exec {
		if p.pid == 0 {
			return nil, fmt.Errorf("%w: a position-independent file is told apart from others by the address of its sites only in a process given by pid: %w", ErrNoCookies, ErrNotSupported)
		}
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err != nil {
			return nil, err
		}
		pl := &placement{path: path, id: process.FileID{Dev: st.Dev, Inode: st.Ino}, first: first, offsets: offsets}
		mm, err := process.ReadMaps(p.pid)
		if err != nil {
			return nil, err
		}
		if err := p.relocate(pl, mm, false); err != nil {
			p.unplace(pl.addrs, first, len(sites))
			return nil, err
		}
		p.placed = append(p.placed, pl)
		return func() {
			p.placed = p.placed[:len(p.placed)-1]
			p.unplace(pl.addrs, first, len(sites))
		}, nil
	}
	keys := sortedKeys(addrs)
	for _, a := range keys {
		if n, ok := p.ips[a]; ok {
			return nil, clash(path, a, n)
		}
	}
	if err := p.putAddrs(addrs); err != nil {
		p.unplace(keys, first, len(sites))
		return nil, err
	}
	return func() { p.unplace(keys, first, len(sites)) }, nil
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

// Relocate puts in the program the addresses of the sites of the files
// attached in the process of Options.PID where the process maps them
// now: after it mapped a file attached before it did (a library of a
// command stopped at its execve), or mapped one anew (dlopen after
// dlclose). It does nothing unless ByAddress.
func (p *Program) Relocate() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.byIP || len(p.placed) == 0 || p.prog == nil {
		return nil
	}
	mm, err := process.ReadMaps(p.pid)
	if err != nil {
		return fmt.Errorf("relocate: %w", err)
	}
	var errs []error
	for _, pl := range p.placed {
		errs = append(errs, p.relocate(pl, mm, true))
	}
	return errors.Join(errs...)
}

// Unmapped returns the files attached in the process of Options.PID
// that it maps no site of, where the program tells the sites apart by
// their address: their hits are skipped until Relocate finds them mapped.
func (p *Program) Unmapped() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var paths []string
	for _, pl := range p.placed {
		if len(pl.addrs) == 0 {
			paths = append(paths, pl.path)
		}
	}
	return paths
}

// relocate sets the addresses of the sites of pl to those in the
// executable mappings of its file among mm, as the kernel places a
// uprobe's breakpoints; a site the process does not map has none. An
// address of another site is a clash, unless again, when the maps are
// the truth: the other site's file is mapped there no more.
func (p *Program) relocate(pl *placement, mm []process.Mapping, again bool) error {
	addrs := make(map[uint64]uint32)
	for i, off := range pl.offsets {
		for _, m := range mm {
			if m.Dev == pl.id.Dev && m.Inode == pl.id.Inode && m.Executable() && off >= m.Offset && off-m.Offset < m.End-m.Start {
				addrs[m.Start+(off-m.Offset)] = uint32(pl.first + i)
			}
		}
	}
	if !again {
		for a := range addrs {
			if n, ok := p.ips[a]; ok {
				return clash(pl.path, a, n)
			}
		}
	}
	var stale []uint64
	for _, a := range pl.addrs {
		if _, ok := addrs[a]; !ok {
			stale = append(stale, a)
		}
	}
	p.unplace(stale, pl.first, len(pl.offsets))
	pl.addrs = sortedKeys(addrs)
	return p.putAddrs(addrs)
}

// putAddrs stores addrs in site_ips.
func (p *Program) putAddrs(addrs map[uint64]uint32) error {
	for a, n := range addrs {
		if err := p.maps.SiteIPs.Put(a, n); err != nil {
			return fmt.Errorf("store the address of site %d: %w", n, err)
		}
		p.ips[a] = n
	}
	return nil
}

// unplace removes from site_ips those of addrs that are of the n sites
// numbered from first: another may have taken an address since.
func (p *Program) unplace(addrs []uint64, first, n int) {
	for _, a := range addrs {
		if s, ok := p.ips[a]; ok && int(s) >= first && int(s) < first+n {
			p.maps.SiteIPs.Delete(a)
			delete(p.ips, a)
		}
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
