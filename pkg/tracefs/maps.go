package tracefs

import (
	"bytes"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// mmap2Header is the size of a PERF_RECORD_MMAP2 up to its file name:
// the header, pid and tid, addr, len and pgoff, maj, min, ino and
// ino_generation, prot and flags (perf_event_open(2)).
const mmap2Header = 8 + 8 + 24 + 24 + 8

// perfRecordMiscMmapBuildID is PERF_RECORD_MISC_MMAP_BUILD_ID: the record
// carries a build ID where the device and inode would be.
const perfRecordMiscMmapBuildID = 1 << 14

// parseMmap2 returns the process and the mapping of rec, a
// PERF_RECORD_MMAP2, header included, and whether it is one that can be
// read.
func parseMmap2(rec []byte) (int, process.Mapping, bool) {
	if len(rec) < mmap2Header || le.Uint32(rec) != unix.PERF_RECORD_MMAP2 || le.Uint16(rec[4:])&perfRecordMiscMmapBuildID != 0 {
		return 0, process.Mapping{}, false
	}
	name := rec[mmap2Header:]
	end := bytes.IndexByte(name, 0)
	if end < 0 {
		return 0, process.Mapping{}, false
	}
	addr, size := le.Uint64(rec[16:]), le.Uint64(rec[24:])
	prot, flags := le.Uint32(rec[64:]), le.Uint32(rec[68:])
	perms := []byte("---p")
	for i, b := range []struct {
		bit uint32
		c   byte
	}{{unix.PROT_READ, 'r'}, {unix.PROT_WRITE, 'w'}, {unix.PROT_EXEC, 'x'}} {
		if prot&b.bit != 0 {
			perms[i] = b.c
		}
	}
	if flags&unix.MAP_SHARED != 0 {
		perms[3] = 's'
	}
	m := process.Mapping{
		Start:  addr,
		End:    addr + size,
		Perms:  string(perms),
		Offset: le.Uint64(rec[32:]),
		Dev:    unix.Mkdev(le.Uint32(rec[40:]), le.Uint32(rec[44:])),
		Inode:  le.Uint64(rec[48:]),
		Path:   string(name[:end]),
	}
	return int(le.Uint32(rec[8:])), m, true
}

// scanMaps hands the mappings of the records rec to TraceOptions.Mapped.
func (t *Tracer) scanMaps(rec []byte) {
	if pid, m, ok := parseMmap2(rec); ok {
		t.mapped(pid, m)
	}
}
