package tracefs

import (
	"fmt"
	"math/bits"
	"runtime"

	"golang.org/x/sys/unix"
)

// A sampling is what the perf events of a Tracer take at each hit
// besides the event's record, and so the layout of their samples.
type sampling struct {
	// Depth, when not 0, takes the user stack as the kernel walks it by
	// its frame pointers, at most Depth frames: PERF_SAMPLE_CALLCHAIN
	// without the kernel's part, as perf record -g.
	Depth uint32
	// Copy, when not 0, copies Copy bytes (a multiple of 8) of the user
	// stack from the stack pointer up, with the user registers of Regs:
	// PERF_SAMPLE_STACK_USER and PERF_SAMPLE_REGS_USER, as perf record
	// --call-graph dwarf.
	Copy uint32
	// Cgroup, when not 0, takes the cgroup of the thread
	// (PERF_SAMPLE_CGROUP).
	Cgroup uint32
	Regs   uint64 // the mask of perf_regs of Copy
	// Maps, when not 0, has the events report the executable mappings
	// the processes they sample make (PERF_RECORD_MMAP2), as perf
	// record has them: set on one event of the processes, not on each.
	Maps uint32
}

// sampleType returns the perf_event_attr sample_type of s, whose fields
// come in each sample in this order (perf_event_open(2)): pid and tid,
// time, cpu, the callchain, the raw trace record (the event's fields as
// its format file lays them out), the user registers, the user stack and
// the cgroup.
func (s *sampling) sampleType() uint64 {
	t := uint64(unix.PERF_SAMPLE_TID | unix.PERF_SAMPLE_TIME | unix.PERF_SAMPLE_CPU | unix.PERF_SAMPLE_RAW)
	if s.Depth > 0 {
		t |= unix.PERF_SAMPLE_CALLCHAIN
	}
	if s.Copy > 0 {
		t |= unix.PERF_SAMPLE_REGS_USER | unix.PERF_SAMPLE_STACK_USER
	}
	if s.Cgroup != 0 {
		t |= unix.PERF_SAMPLE_CGROUP
	}
	return t
}

// setAttr sets the fields of attr that s needs.
func (s *sampling) setAttr(attr *unix.PerfEventAttr) {
	attr.Sample_type = s.sampleType()
	if s.Depth > 0 {
		attr.Bits |= unix.PerfBitExcludeCallchainKernel
		attr.Sample_max_stack = uint16(s.Depth)
	}
	if s.Copy > 0 {
		attr.Sample_stack_user = s.Copy
		attr.Sample_regs_user = s.Regs
	}
	if s.Maps != 0 {
		attr.Bits |= unix.PerfBitMmap | unix.PerfBitMmap2
	}
}

// A perfSample is the fields of one PERF_RECORD_SAMPLE of a probe event.
type perfSample struct {
	pid, tid uint32
	time     uint64 // CLOCK_MONOTONIC, in ns
	cpu      uint32
	chain    []byte // the callchain's entries, 8 bytes each, markers included
	raw      []byte // the trace record
	regs     []byte // the registers of Regs, 8 bytes each in the order of their bits; nil if none
	stack    []byte // the bytes of the user stack copied
	cgroup   uint64
}

// parse parses rec, a PERF_RECORD_SAMPLE, header included, of perf
// events sampling as s says, into out, whose slices point into rec. It
// reports whether rec holds every field its sizes say it does.
func (s *sampling) parse(rec []byte, out *perfSample) bool {
	if len(rec) < 8 {
		return false
	}
	p := rec[8:]
	take := func(n uint64) []byte {
		if n > uint64(len(p)) {
			return nil
		}
		b := p[:n]
		p = p[n:]
		return b
	}
	b := take(24)
	if b == nil {
		return false
	}
	out.pid, out.tid = le.Uint32(b), le.Uint32(b[4:])
	out.time = le.Uint64(b[8:])
	out.cpu = le.Uint32(b[16:])
	out.chain, out.regs, out.stack, out.cgroup = nil, nil, nil, 0
	if s.Depth > 0 {
		b := take(8)
		if b == nil {
			return false
		}
		nr := le.Uint64(b)
		if nr > uint64(len(p))/8 {
			return false
		}
		out.chain = take(8 * nr)
	}
	b = take(4)
	if b == nil {
		return false
	}
	// The raw record's size counts the padding that aligns what follows
	// to 8 bytes.
	if out.raw = take(uint64(le.Uint32(b))); out.raw == nil {
		return false
	}
	if s.Copy > 0 {
		b := take(8)
		if b == nil {
			return false
		}
		if abi := le.Uint64(b); abi != unix.PERF_SAMPLE_REGS_ABI_NONE {
			if out.regs = take(8 * uint64(bits.OnesCount64(s.Regs))); out.regs == nil {
				return false
			}
		}
		if b = take(8); b == nil {
			return false
		}
		// A size of 0 (no user registers) has no data and no
		// dyn_size.
		if size := le.Uint64(b); size > 0 {
			data := take(size)
			dyn := take(8)
			if data == nil || dyn == nil {
				return false
			}
			out.stack = data[:min(le.Uint64(dyn), size)]
		}
	}
	if s.Cgroup != 0 {
		b := take(8)
		if b == nil {
			return false
		}
		out.cgroup = le.Uint64(b)
	}
	return true
}

// perfContextMax is PERF_CONTEXT_MAX: the callchain's entries from it up
// are markers of the context of those that follow, not addresses.
const perfContextMax = ^uint64(4095 - 1)

// perfContextUser is PERF_CONTEXT_USER, the marker of the user part.
const perfContextUser = ^uint64(512 - 1)

// userChain appends to dst the addresses of the user part of the
// callchain chain (perfSample.chain), at most max of them.
func userChain(dst []uint64, chain []byte, max int) []uint64 {
	user := false
	for i := 0; i+8 <= len(chain) && len(dst) < max; i += 8 {
		ip := le.Uint64(chain[i:])
		if ip >= perfContextMax {
			user = ip == perfContextUser
			continue
		}
		if user {
			dst = append(dst, ip)
		}
	}
	return dst
}

// A regsLayout is which user registers a stack copy takes, and where
// each that an unwind starts from is in the sample's registers.
type regsLayout struct {
	mask           uint64
	pc, sp, fp, lr int // index in perfSample.regs; -1 none
}

// userRegs are the layouts by GOARCH (arch/*/include/uapi/asm/perf_regs.h).
var userRegs = map[string]regsLayout{
	// bp (6), sp (7), ip (8).
	"amd64": {mask: 1<<6 | 1<<7 | 1<<8, pc: 2, sp: 1, fp: 0, lr: -1},
	// x29 (29), lr (30), sp (31), pc (32).
	"arm64": {mask: 1<<29 | 1<<30 | 1<<31 | 1<<32, pc: 3, sp: 2, fp: 0, lr: 1},
}

// stackRegs returns the layout of this machine's registers.
func stackRegs() (regsLayout, error) {
	l, ok := userRegs[runtime.GOARCH]
	if !ok {
		return l, fmt.Errorf("copies of the user stack: not supported on %s", runtime.GOARCH)
	}
	return l, nil
}

// fill sets regs, in the order of hit.StackCopy.Regs (pc, sp, frame
// pointer, link register), from the sample's registers b; 0 for those
// b lacks.
func (l *regsLayout) fill(regs *[4]uint64, b []byte) {
	for i, at := range [4]int{l.pc, l.sp, l.fp, l.lr} {
		regs[i] = 0
		if at >= 0 && 8*at+8 <= len(b) {
			regs[i] = le.Uint64(b[8*at:])
		}
	}
}
