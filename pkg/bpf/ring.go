package bpf

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Bits of a ring buffer record's length word (include/uapi/linux/bpf.h).
const (
	ringBusyBit    = 1 << 31
	ringDiscardBit = 1 << 30
	ringHeaderSize = 8
)

// A ring reads the records of a BPF ring buffer map in place.
//
// ringbuf.Reader copies each record out and gives its space back to the
// kernel at once, by storing the consumer position. That position shares
// a cache line that every bpf_ringbuf_reserve of the traced threads reads
// (and bpf_ringbuf_query, by which the program batches wakeups), so a
// store per record moves the line between the reader's CPU and the
// traced thread's for every event, at a cost to both. A ring reads every
// record up to the producer position it last loaded and stores the
// consumer position once per release bytes, and always before it sleeps,
// so the space a stalled reader holds back is bounded and Pending reaches 0
// once everything has been read.
type ring struct {
	mu      sync.Mutex // held while reading; Close takes it before unmapping
	closing atomic.Bool
	cons    []byte // the consumer page, writable
	prod    []byte // the producer page, then the data pages mapped twice
	data    []byte // the data, contiguous across the wrap
	consPos *uint64
	prodPos *uint64
	mask    uint64
	release uint64 // bytes read before the consumer position is stored
	epfd    int
	evfd    int // written by Close to end a wait
	flush   time.Duration

	pos      atomic.Uint64 // the next record to read
	prodSeen uint64        // the producer position last loaded
	freed    uint64        // the consumer position last stored
	events   [2]unix.EpollEvent
}

// newRing maps the ring buffer map fd of size bytes (a power of two). A
// wait for records lasts at most flush, after which the ring is looked at
// again: the program wakes the reader only once per batch.
func newRing(fd, size int, flush time.Duration) (r *ring, err error) {
	page := os.Getpagesize()
	r = &ring{mask: uint64(size - 1), release: uint64(size / 16), flush: flush, epfd: -1, evfd: -1}
	defer func() {
		if err != nil {
			r.unmap()
		}
	}()
	if r.cons, err = unix.Mmap(fd, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err != nil {
		return nil, fmt.Errorf("mmap consumer page: %w", err)
	}
	if r.prod, err = unix.Mmap(fd, int64(page), page+2*size, unix.PROT_READ, unix.MAP_SHARED); err != nil {
		return nil, fmt.Errorf("mmap data pages: %w", err)
	}
	// A fork (see forkBarrier) would copy the page table of the whole
	// ring, which the kernel maps at once: no child reads it.
	unix.Madvise(r.cons, unix.MADV_DONTFORK)
	unix.Madvise(r.prod, unix.MADV_DONTFORK)
	r.consPos = (*uint64)(unsafe.Pointer(&r.cons[0]))
	r.prodPos = (*uint64)(unsafe.Pointer(&r.prod[0]))
	r.data = r.prod[page:]
	r.freed = atomic.LoadUint64(r.consPos)
	r.prodSeen = r.freed
	r.pos.Store(r.freed)
	if r.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	if r.evfd, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	for _, f := range []int{fd, r.evfd} {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(f)}
		if err := unix.EpollCtl(r.epfd, unix.EPOLL_CTL_ADD, f, &ev); err != nil {
			return nil, fmt.Errorf("epoll_ctl: %w", err)
		}
	}
	return r, nil
}

// read waits for the next record and calls fn with it. fn must not keep
// b: its space goes back to the kernel after fn returns. After Close,
// read returns an error matching ErrClosed.
func (r *ring) read(fn func(b []byte) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for spins := 0; ; spins++ {
		if r.closing.Load() || r.prod == nil {
			return ErrClosed
		}
		pos := r.pos.Load()
		if pos == r.prodSeen {
			if r.prodSeen = atomic.LoadUint64(r.prodPos); pos == r.prodSeen {
				r.free(pos)
				if err := r.wait(); err != nil {
					return err
				}
				continue
			}
		}
		off := pos & r.mask
		hdr := atomic.LoadUint32((*uint32)(unsafe.Pointer(&r.data[off])))
		if hdr&ringBusyBit != 0 {
			// Reserved and not committed yet: the program is between
			// reserve and submit on another CPU, a matter of
			// nanoseconds, unless its thread was preempted there.
			if spins > 1000 {
				time.Sleep(10 * time.Microsecond)
			}
			continue
		}
		n := uint64(hdr &^ (ringBusyBit | ringDiscardBit))
		next := pos + ringHeaderSize + (n+7)&^7
		if n > r.mask || next > r.prodSeen {
			return fmt.Errorf("read ring buffer: record of %d bytes at %d past the producer at %d", n, pos, r.prodSeen)
		}
		var err error
		discarded := hdr&ringDiscardBit != 0
		if !discarded {
			start := off + ringHeaderSize
			err = fn(r.data[start : start+n : start+n])
		}
		r.pos.Store(next)
		if next-r.freed >= r.release {
			r.free(next)
		}
		if !discarded {
			return err
		}
	}
}

// free gives the space before pos back to the kernel.
func (r *ring) free(pos uint64) {
	if pos != r.freed {
		atomic.StoreUint64(r.consPos, pos)
		r.freed = pos
	}
}

// wait sleeps until the program wakes the reader, Close is called, or the
// flush interval passes.
func (r *ring) wait() error {
	_, err := unix.EpollWait(r.epfd, r.events[:], int(max(r.flush.Milliseconds(), 1)))
	if err != nil && !errors.Is(err, unix.EINTR) {
		return fmt.Errorf("read ring buffer: epoll_wait: %w", err)
	}
	return nil
}

// buffered reports whether records stand ready for read: records up to
// the producer position last loaded that read has not returned yet. It
// is called by read's caller between reads, so prodSeen, which only read
// writes, needs no lock.
func (r *ring) buffered() bool {
	return r.pos.Load() < r.prodSeen
}

// pending returns the bytes of records not read yet. It must not be
// called concurrently with Close.
func (r *ring) pending() int {
	if r.closing.Load() {
		return 0
	}
	return int(atomic.LoadUint64(r.prodPos) - r.pos.Load())
}

// Close ends a read in progress and unmaps the ring.
func (r *ring) Close() error {
	if r.closing.Swap(true) {
		return nil
	}
	var one [8]byte
	*(*uint64)(unsafe.Pointer(&one[0])) = 1
	_, werr := unix.Write(r.evfd, one[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(werr, r.unmap())
}

func (r *ring) unmap() error {
	var errs []error
	for _, m := range []*[]byte{&r.prod, &r.cons} {
		if *m != nil {
			errs = append(errs, unix.Munmap(*m))
			*m = nil
		}
	}
	for _, fd := range []*int{&r.epfd, &r.evfd} {
		if *fd >= 0 {
			errs = append(errs, unix.Close(*fd))
			*fd = -1
		}
	}
	return errors.Join(errs...)
}
