package tracefs

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openEvent opens a perf event on the tracefs event whose id is id, for
// thread pid (-1: every process) on cpu, sampling every hit with the
// time of CLOCK_MONOTONIC: the one clock a tracepoint's perf event takes
// that converts to the Unix time (the others it takes are not safe in
// NMI context, which tracepoints are denied). With inherit,
// the threads and processes pid creates later are sampled too. The
// uprobe is registered as long as the event exists, and only in the
// processes the event samples. Each sample holds what s says.
func openEvent(id uint32, pid, cpu int, inherit bool, watermark uint32, s *sampling) (int, error) {
	attr := unix.PerfEventAttr{
		Type:    unix.PERF_TYPE_TRACEPOINT,
		Size:    uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Config:  uint64(id),
		Sample:  1,
		Bits:    unix.PerfBitWatermark | unix.PerfBitUseClockID,
		Wakeup:  watermark,
		Clockid: unix.CLOCK_MONOTONIC,
	}
	s.setAttr(&attr)
	if inherit {
		attr.Bits |= unix.PerfBitInherit
	}
	fd, err := unix.PerfEventOpen(&attr, pid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("perf_event_open: %w", err)
	}
	return fd, nil
}

// A ring is the mmap'ed ring buffer of the perf events of one CPU.
type ring struct {
	fd      int
	mem     []byte
	meta    *unix.PerfEventMmapPage
	data    []byte
	tail    uint64 // read up to here
	head    uint64 // written up to here, as last loaded
	scanned uint64 // scanned up to here (scan)
	rec     []byte // a record that wraps, copied whole
	srec    []byte // the same, for scan
}

// newRing maps a ring buffer of size bytes (a power of two of pages) for
// the perf event fd; the other events of its CPU are sent to it with
// redirect.
func newRing(fd, size int) (*ring, error) {
	page := unix.Getpagesize()
	mem, err := unix.Mmap(fd, 0, page+size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap perf ring: %w", err)
	}
	r := &ring{fd: fd, mem: mem, meta: (*unix.PerfEventMmapPage)(unsafe.Pointer(&mem[0])), data: mem[page:]}
	r.tail = atomic.LoadUint64(&r.meta.Data_tail)
	return r, nil
}

// redirect sends the records of the perf event fd, of the ring's CPU,
// to the ring.
func (r *ring) redirect(fd int) error {
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_OUTPUT, r.fd); err != nil {
		return fmt.Errorf("perf set output: %w", err)
	}
	return nil
}

// load loads how far the kernel has written, up to which next and scan
// give records.
func (r *ring) load() {
	r.head = atomic.LoadUint64(&r.meta.Data_head)
}

// next returns the next record, header included, nil when the ring is
// read up to its head as last loaded. The record is valid until the
// next call.
func (r *ring) next() []byte {
	if r.tail == r.head {
		// Consumed up to here: the kernel may write over it.
		atomic.StoreUint64(&r.meta.Data_tail, r.tail)
		return nil
	}
	rec := r.at(r.tail, &r.rec)
	if rec == nil {
		// Never written so by the kernel: skip what is there.
		r.tail = r.head
		return nil
	}
	r.tail += uint64(len(rec))
	return rec
}

// scan calls f with each record up to the head as last loaded that
// scan has not given before, leaving them to next. The record is valid
// until f returns.
func (r *ring) scan(f func(rec []byte)) {
	pos := max(r.scanned, r.tail)
	for pos < r.head {
		rec := r.at(pos, &r.srec)
		if rec == nil {
			pos = r.head
			break
		}
		f(rec)
		pos += uint64(len(rec))
	}
	r.scanned = pos
}

// at returns the record at pos, before the head, copied into *buf when it
// wraps; nil when its size is not one the kernel writes.
func (r *ring) at(pos uint64, buf *[]byte) []byte {
	n := uint64(len(r.data))
	off := pos % n
	var hdr [8]byte
	for i := range hdr {
		hdr[i] = r.data[(off+uint64(i))%n]
	}
	size := uint64(binary.LittleEndian.Uint16(hdr[6:]))
	if size < 8 || r.head-pos < size {
		return nil
	}
	if off+size <= n {
		return r.data[off : off+size]
	}
	*buf = append((*buf)[:0], r.data[off:]...)
	*buf = append(*buf, r.data[:size-(n-off)]...)
	return *buf
}

// pending reports whether the kernel has written records the ring has
// not given yet.
func (r *ring) pending() bool {
	return r.tail != atomic.LoadUint64(&r.meta.Data_head)
}

func (r *ring) close() error {
	err := unix.Munmap(r.mem)
	r.mem, r.data, r.meta = nil, nil, nil
	return err
}
