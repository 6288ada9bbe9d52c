//go:build linux && (amd64 || arm64)

package sdt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A space is an address range reserved for a provider's object. Its pages
// are never handed back while the Provider is reachable, so that an
// Enabled racing with Close reads anonymous memory rather than faulting;
// Load maps the next object into it when it fits.
type space struct {
	addr unsafe.Pointer
	size uintptr
}

// reserve returns a space of at least size bytes for p, reusing p's.
func (p *Provider) reserve(size uintptr) (*space, error) {
	if p.space != nil && p.space.size >= size {
		return p.space, nil
	}
	addr, err := unix.MmapPtr(-1, 0, nil, size, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("reserve %d bytes: %w", size, err)
	}
	// A smaller space reserved before stays reserved too, until p goes.
	s := &space{addr: addr, size: size}
	runtime.AddCleanup(p, func(s *space) { unix.MunmapPtr(s.addr, s.size) }, s)
	p.space = s
	return s, nil
}

// longNops reports whether Load places probes on the 5-byte nop: on
// x86-64, where the kernel optimizes uprobes on it. A variable, so that
// tests load both kinds.
var longNops = func() bool { return host.longNop != nil && host.longNop() }

// An object is a provider's object mapped into the process.
type object struct {
	img  *image
	file *os.File // the memfd or temporary file, open while mapped
	tmp  string   // the temporary file's name, removed by close
	path string   // how tracers can open the file
	at   unsafe.Pointer
	rx   uintptr // mapped length of the code segment
	rw   uintptr // mapped length of the data segment
}

func pageRound(n uint64, page uintptr) uintptr {
	return (uintptr(n) + page - 1) &^ (page - 1)
}

func (p *Provider) load() error {
	page := uintptr(os.Getpagesize())
	img, err := build(p.name, p.probes, host, uint64(page), longNops())
	if err != nil {
		return err
	}
	o := &object{img: img, rx: pageRound(img.rx.size, page), rw: pageRound(img.rw.size, page)}
	sp, err := p.reserve(uintptr(img.rw.off) + o.rw)
	if err != nil {
		return err
	}
	o.at = sp.addr
	if err := o.open(p.name); err != nil {
		return err
	}
	if err := o.mapSegments(); err != nil {
		o.file.Close()
		if o.tmp != "" {
			os.Remove(o.tmp)
		}
		return err
	}
	for i, pr := range p.probes {
		s := img.sites[i]
		pr.st.Store(&state{
			sema: (*uint32)(unsafe.Add(o.at, s.sema)),
			stub: (*uint32)(unsafe.Add(o.at, s.fn)),
			orig: binary.NativeEndian.Uint32(img.bytes[s.fn:]),
			fn:   uintptr(unsafe.Add(o.at, s.fn)),
		})
	}
	p.obj = o
	return nil
}

// memfdCreate is unix.MemfdCreate, replaced in tests.
var memfdCreate = unix.MemfdCreate

// open writes the object to a memfd named name or, where the memfd cannot
// be mapped executable, to a temporary file.
func (o *object) open(name string) error {
	fd, err := memfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		// Kernels before 6.3 know no MFD_EXEC; their memfds are executable.
		fd, err = memfdCreate(name, unix.MFD_CLOEXEC)
	}
	if err == nil {
		o.file = os.NewFile(uintptr(fd), "/memfd:"+name)
		o.path = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), fd)
		if err = o.write(); err == nil {
			return nil
		}
		o.file.Close()
	}
	memfdErr := err
	f, err := os.CreateTemp("", name+"-*.so")
	if err != nil {
		return fmt.Errorf("memfd: %w; temporary file: %w", memfdErr, err)
	}
	o.file, o.tmp, o.path = f, f.Name(), f.Name()
	if err := o.write(); err != nil {
		f.Close()
		os.Remove(o.tmp)
		return fmt.Errorf("memfd: %w; temporary file: %w", memfdErr, err)
	}
	return nil
}

// write writes the object to o.file and checks that it can be mapped
// executable, which a noexec memfd or mount refuses.
func (o *object) write() error {
	if _, err := o.file.WriteAt(o.img.bytes, 0); err != nil {
		return err
	}
	addr, err := unix.MmapPtr(int(o.file.Fd()), 0, nil, o.rx, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_PRIVATE)
	if err != nil {
		return fmt.Errorf("map executable: %w", err)
	}
	return unix.MunmapPtr(addr, o.rx)
}

// mapSegments maps the code and data segments at o.at, over the reserved
// space, as the dynamic loader would: private, the code read-only and
// executable, the data writable, so that the kernel installs uprobes in
// the one and updates semaphores in the other.
func (o *object) mapSegments() error {
	fd := int(o.file.Fd())
	if _, err := unix.MmapPtr(fd, 0, o.at, o.rx, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_PRIVATE|unix.MAP_FIXED); err != nil {
		return fmt.Errorf("map code: %w", err)
	}
	rw := unsafe.Add(o.at, o.img.rw.off)
	if _, err := unix.MmapPtr(fd, int64(o.img.rw.off), rw, o.rw, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED); err != nil {
		o.unmap()
		return fmt.Errorf("map data: %w", err)
	}
	return nil
}

// unmap replaces the object's mappings by anonymous memory holding what
// an untraced, unloaded object reads as: the original code, read-only,
// and zero semaphores. The code is built aside and moved into place in
// one step, so no reader sees a half-built page.
func (o *object) unmap() error {
	var errs []error
	code, err := unix.MmapPtr(-1, 0, nil, o.rx, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err == nil {
		copy(unsafe.Slice((*byte)(code), o.rx), o.img.bytes[:min(uint64(o.rx), o.img.rx.size)])
		err = unix.Mprotect(unsafe.Slice((*byte)(code), o.rx), unix.PROT_READ)
		if err == nil {
			_, err = unix.MremapPtr(code, o.rx, o.at, o.rx, unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED)
		}
		if err != nil {
			unix.MunmapPtr(code, o.rx)
		}
	}
	if err != nil {
		// Zero pages then: Enabled may read true, Fire is refused.
		_, err = unix.MmapPtr(-1, 0, o.at, o.rx, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("unmap code: %w", err))
	}
	rw := unsafe.Add(o.at, o.img.rw.off)
	if _, err := unix.MmapPtr(-1, 0, rw, o.rw, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED); err != nil {
		errs = append(errs, fmt.Errorf("unmap data: %w", err))
	}
	return errors.Join(errs...)
}

func (o *object) close() error {
	err := o.unmap()
	if cerr := o.file.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if o.tmp != "" {
		if rerr := os.Remove(o.tmp); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	return err
}
