package tracefs

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"golang.org/x/sys/unix"
)

// record builds a PERF_RECORD_SAMPLE of the fields given, each a run of
// 8-byte words or bytes, after pid 42, tid 43, time 1000 and cpu 1.
func record(fields ...[]byte) []byte {
	le := binary.LittleEndian
	rec := make([]byte, 32)
	le.PutUint32(rec, unix.PERF_RECORD_SAMPLE)
	le.PutUint32(rec[8:], 42)
	le.PutUint32(rec[12:], 43)
	le.PutUint64(rec[16:], 1000)
	le.PutUint32(rec[24:], 1)
	for _, f := range fields {
		rec = append(rec, f...)
	}
	le.PutUint16(rec[6:], uint16(len(rec)))
	return rec
}

func words(ws ...uint64) []byte {
	b := make([]byte, 8*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

// rawField is a raw record of 12 bytes padded to 16, with its size.
func rawField() []byte {
	b := make([]byte, 4+12)
	binary.LittleEndian.PutUint32(b, 12)
	copy(b[4:], "0123456789ab")
	return b
}

func TestSamplingParse(t *testing.T) {
	raw := []byte("0123456789ab")
	stack := bytes.Repeat([]byte{0xaa}, 24)
	for _, tt := range []struct {
		name   string
		s      sampling
		rec    []byte
		ok     bool
		chain  []byte
		regs   []byte
		stack  []byte
		cgroup uint64
	}{
		{name: "plain", rec: record(rawField()), ok: true},
		{name: "cgroup", s: sampling{Cgroup: 1}, rec: record(rawField(), words(77)), ok: true, cgroup: 77},
		{
			name: "callchain", s: sampling{Depth: 4, Cgroup: 1},
			rec: record(words(3, perfContextUser, 0x1000, 0x2000), rawField(), words(9)), ok: true,
			chain: words(perfContextUser, 0x1000, 0x2000), cgroup: 9,
		},
		{name: "empty callchain", s: sampling{Depth: 4}, rec: record(words(0), rawField()), ok: true},
		{name: "callchain past the record", s: sampling{Depth: 4}, rec: record(words(5, 1, 2), rawField())},
		{
			// abi, bp, sp, ip; size, data, dyn_size less than size.
			name: "stack copy", s: sampling{Copy: 32, Regs: userRegs["amd64"].mask, Cgroup: 1},
			rec: record(rawField(), words(unix.PERF_SAMPLE_REGS_ABI_64, 0xb, 0x5, 0x1), words(32), stack, make([]byte, 8), words(24), words(5)), ok: true,
			regs: words(0xb, 0x5, 0x1), stack: stack, cgroup: 5,
		},
		{
			// No user registers: abi none, size 0, no data nor dyn_size.
			name: "no user regs", s: sampling{Copy: 32, Regs: userRegs["amd64"].mask, Cgroup: 1},
			rec: record(rawField(), words(unix.PERF_SAMPLE_REGS_ABI_NONE), words(0), words(6)), ok: true, cgroup: 6,
		},
		{
			name: "dyn_size past size", s: sampling{Copy: 8, Regs: userRegs["amd64"].mask},
			rec: record(rawField(), words(unix.PERF_SAMPLE_REGS_ABI_64, 1, 2, 3), words(8), stack[:8], words(4096)), ok: true,
			regs: words(1, 2, 3), stack: stack[:8],
		},
		{name: "stack past the record", s: sampling{Copy: 32, Regs: 1}, rec: record(rawField(), words(unix.PERF_SAMPLE_REGS_ABI_64, 1), words(32), stack[:8])},
		{name: "raw past the record", rec: record(words(100))},
		{name: "short", rec: make([]byte, 20)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got perfSample
			ok := tt.s.parse(tt.rec, &got)
			if ok != tt.ok {
				t.Fatalf("parse = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if got.pid != 42 || got.tid != 43 || got.time != 1000 || got.cpu != 1 {
				t.Errorf("parse: pid %d tid %d time %d cpu %d, want 42 43 1000 1", got.pid, got.tid, got.time, got.cpu)
			}
			if !bytes.Equal(got.raw[:12], raw) {
				t.Errorf("parse: raw %q, want %q", got.raw, raw)
			}
			if !bytes.Equal(got.chain, tt.chain) || !bytes.Equal(got.regs, tt.regs) || !bytes.Equal(got.stack, tt.stack) || got.cgroup != tt.cgroup {
				t.Errorf("parse: chain %x regs %x stack %x cgroup %d\nwant         %x      %x       %x cgroup %d", got.chain, got.regs, got.stack, got.cgroup, tt.chain, tt.regs, tt.stack, tt.cgroup)
			}
		})
	}
}

func TestUserChain(t *testing.T) {
	const kernelCtx = ^uint64(128 - 1) // PERF_CONTEXT_KERNEL
	for _, tt := range []struct {
		chain []uint64
		max   int
		want  []uint64
	}{
		{[]uint64{perfContextUser, 1, 2, 3}, 127, []uint64{1, 2, 3}},
		{[]uint64{perfContextUser, 1, 2, 3}, 2, []uint64{1, 2}},
		{[]uint64{kernelCtx, 0xffffffff81000000, perfContextUser, 4}, 127, []uint64{4}},
		{[]uint64{5, 6}, 127, nil}, // no marker: not known to be the user's
		{nil, 127, nil},
	} {
		if got := userChain(nil, words(tt.chain...), tt.max); !slices.Equal(got, tt.want) {
			t.Errorf("userChain(%x, %d) = %x, want %x", tt.chain, tt.max, got, tt.want)
		}
	}
}

func TestRegsFill(t *testing.T) {
	for _, tt := range []struct {
		arch string
		regs []uint64 // in the order of the mask's bits
		want [4]uint64
	}{
		{"amd64", []uint64{0xbb, 0x55, 0x11}, [4]uint64{0x11, 0x55, 0xbb, 0}},
		{"arm64", []uint64{0x29, 0x30, 0x55, 0x11}, [4]uint64{0x11, 0x55, 0x29, 0x30}},
		{"amd64", nil, [4]uint64{}},
	} {
		l := userRegs[tt.arch]
		got := [4]uint64{9, 9, 9, 9}
		l.fill(&got, words(tt.regs...))
		if got != tt.want {
			t.Errorf("%s fill(%x) = %x, want %x", tt.arch, tt.regs, got, tt.want)
		}
	}
}

// TestDecodeStack decodes the stacks of samples into events: the user
// part of the callchain, or the copy with its registers.
func TestDecodeStack(t *testing.T) {
	const id = 7
	tr := &Tracer{
		types: map[uint32]*eventFormat{id: {name: "g/e"}},
		sites: []*siteFormat{{id: id, site: &Site{}}},
	}
	rawID := make([]byte, 4+8)
	binary.LittleEndian.PutUint32(rawID, 8)
	binary.LittleEndian.PutUint16(rawID[4:], id)

	tr.samp = sampling{Depth: 2}
	var ev hit.Event
	if !tr.decode(record(words(4, perfContextUser, 0x10, 0x20, 0x30), rawID), &ev) {
		t.Fatal("decode of a sample with a callchain: no event")
	}
	if want := []uint64{0x10, 0x20}; !slices.Equal(ev.Stack, want) {
		t.Errorf("decode: Stack %x, want %x", ev.Stack, want)
	}

	tr.samp = sampling{Copy: 16, Regs: userRegs["amd64"].mask}
	tr.regs = userRegs["amd64"]
	copied := []byte("0123456789abcdef")
	if !tr.decode(record(rawID, words(unix.PERF_SAMPLE_REGS_ABI_64, 0xb, 0x5, 0x1), words(16), copied, words(16)), &ev) {
		t.Fatal("decode of a sample with a stack copy: no event")
	}
	if want := [4]uint64{0x1, 0x5, 0xb, 0}; ev.StackCopy.Regs != want || !bytes.Equal(ev.StackCopy.Bytes, copied) {
		t.Errorf("decode: StackCopy %x %q, want %x %q", ev.StackCopy.Regs, ev.StackCopy.Bytes, want, copied)
	}
}
