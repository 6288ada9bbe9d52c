package tracefs

import (
	"encoding/binary"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// mmap2 builds a PERF_RECORD_MMAP2 of process 42 mapping name at
// 0x7f0000001000, 0x3000 bytes at file offset 0x2000, of device 8:1 and
// inode 99, with prot and flags, padded to 8 bytes, with misc.
func mmap2(name string, prot, flags uint32, misc uint16) []byte {
	le := binary.LittleEndian
	rec := make([]byte, mmap2Header)
	le.PutUint32(rec, unix.PERF_RECORD_MMAP2)
	le.PutUint16(rec[4:], misc)
	le.PutUint32(rec[8:], 42)
	le.PutUint32(rec[12:], 43)
	le.PutUint64(rec[16:], 0x7f0000001000)
	le.PutUint64(rec[24:], 0x3000)
	le.PutUint64(rec[32:], 0x2000)
	le.PutUint32(rec[40:], 8)
	le.PutUint32(rec[44:], 1)
	le.PutUint64(rec[48:], 99)
	le.PutUint32(rec[64:], prot)
	le.PutUint32(rec[68:], flags)
	rec = append(rec, name...)
	rec = append(rec, make([]byte, 8-len(name)%8)...)
	le.PutUint16(rec[6:], uint16(len(rec)))
	return rec
}

func TestParseMmap2(t *testing.T) {
	lib := process.Mapping{Start: 0x7f0000001000, End: 0x7f0000004000, Perms: "r-xp", Offset: 0x2000, Dev: unix.Mkdev(8, 1), Inode: 99, Path: "/usr/lib/libc.so.6"}
	shared := lib
	shared.Perms = "rw-s"
	for _, tt := range []struct {
		name string
		rec  []byte
		want process.Mapping
		ok   bool
	}{
		{"library", mmap2(lib.Path, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_PRIVATE, 0), lib, true},
		{"shared", mmap2(lib.Path, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED, 0), shared, true},
		{"build id", mmap2(lib.Path, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_PRIVATE, perfRecordMiscMmapBuildID), process.Mapping{}, false},
		{"short", mmap2(lib.Path, unix.PROT_READ, 0, 0)[:mmap2Header-1], process.Mapping{}, false},
		{"no end to its name", mmap2(lib.Path, unix.PROT_READ, 0, 0)[:mmap2Header+4], process.Mapping{}, false},
		{"a sample", record(), process.Mapping{}, false},
	} {
		pid, m, ok := parseMmap2(tt.rec)
		if ok != tt.ok || m != tt.want || ok && pid != 42 {
			t.Errorf("%s: parseMmap2 = %d, %+v, %v, want 42, %+v, %v", tt.name, pid, m, ok, tt.want, tt.ok)
		}
	}
}

// TestRingScan checks that scan gives each record up to the head loaded
// once, ahead of next, which gives them all, a record that wraps the
// ring's end included, and neither goes past the head loaded.
func TestRingScan(t *testing.T) {
	meta := &unix.PerfEventMmapPage{}
	r := &ring{meta: meta, data: make([]byte, 256)}
	var written uint64
	write := func(rec []byte) {
		for i, b := range rec {
			r.data[(written+uint64(i))%uint64(len(r.data))] = b
		}
		written += uint64(len(rec))
		meta.Data_head = written
	}
	var scanned, read [][]byte
	scan := func(rec []byte) { scanned = append(scanned, slices.Clone(rec)) }
	recs := [][]byte{mmap2("/a", unix.PROT_EXEC, 0, 0), record(), mmap2("/b", unix.PROT_EXEC, 0, 0)}
	write(recs[0])
	write(recs[1])
	r.load()
	write(recs[2]) // after the load: left for the next
	r.scan(scan)
	for rec := r.next(); rec != nil; rec = r.next() {
		read = append(read, slices.Clone(rec))
	}
	if len(scanned) != 2 || len(read) != 2 {
		t.Fatalf("before the third record's load: scanned %d, read %d, want 2 and 2", len(scanned), len(read))
	}
	// The ring is 256 bytes: the next records wrap its end.
	write(recs[0])
	r.load()
	r.scan(scan)
	r.scan(scan) // nothing new
	for rec := r.next(); rec != nil; rec = r.next() {
		read = append(read, slices.Clone(rec))
	}
	want := append(slices.Clone(recs), recs[0])
	if !slices.EqualFunc(read, want, slices.Equal) {
		t.Errorf("next gave %d records, want %d, the same bytes", len(read), len(want))
	}
	if !slices.EqualFunc(scanned, want, slices.Equal) {
		t.Errorf("scan gave %d records, want %d, the same bytes", len(scanned), len(want))
	}
	if meta.Data_tail != written {
		t.Errorf("Data_tail = %d, want %d", meta.Data_tail, written)
	}
}
