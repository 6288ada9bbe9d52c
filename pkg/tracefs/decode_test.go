package tracefs

import (
	"encoding/binary"
	"os"
	"testing"
	"unsafe"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"golang.org/x/sys/unix"
)

// TestDecodeHigh decodes the records of a string whose 4-byte pointer
// is in memory, fetched with the 4 bytes after it (Options.KernelWord):
// the string where they are 0, else null with one warning.
func TestDecodeHigh(t *testing.T) {
	const id = 7
	var warnings []error
	site := &Site{
		Target: &probe.Target{Name: "/bin/x"},
		Probe:  &probe.Probe{Provider: "m", Name: "str"},
		Args:   []probespec.Type{{Kind: probespec.String}},
	}
	tr := &Tracer{
		types:  map[uint32]*eventFormat{id: {name: "g/str"}},
		strlen: 64,
		warn:   func(err error) { warnings = append(warnings, err) },
	}
	tr.sites = []*siteFormat{{
		id:   id,
		site: site,
		args: []*Field{{Name: "arg0", Offset: 8, Size: 4, Dynamic: true}},
		high: []*Field{{Name: "arg0_high", Offset: 12, Size: 4}},
		raw:  []string{"4@8(%ebp)"},
	}}
	const warning = `/bin/x: m:str: arg0 "4@8(%ebp)": a 4-byte pointer in memory, which a 64-bit kernel's fetch argument reads with the 4 bytes after it, not 0 here (pid 42); shown as null`
	for _, tt := range []struct {
		high     uint32
		want     hit.Value
		warnings int
	}{
		{0, hit.Value{Kind: hit.String, Size: 8, Str: "hello"}, 0},
		{1, hit.Value{}, 1},
		{0x5a5a, hit.Value{}, 1}, // said once
		{0, hit.Value{Kind: hit.String, Size: 8, Str: "hello"}, 1},
	} {
		var ev hit.Event
		if !tr.decode(sample(id, tt.high, "hello"), &ev) {
			t.Fatalf("decode of a sample with arg0_high %#x: no event", tt.high)
		}
		if len(ev.Args) != 1 || ev.Args[0] != tt.want {
			t.Errorf("decode with arg0_high %#x: args %v, want [%v]", tt.high, ev.Args, tt.want)
		}
		if len(warnings) != tt.warnings {
			t.Errorf("decode with arg0_high %#x: %d warnings, want %d", tt.high, len(warnings), tt.warnings)
		}
	}
	if len(warnings) > 0 && warnings[0].Error() != warning {
		t.Errorf("warning %q\nwant     %q", warnings[0], warning)
	}
}

// sample returns a PERF_RECORD_SAMPLE of process 42 whose raw record,
// of event id, has the string s at its field arg0 (offset 8) and high at
// arg0_high (offset 12).
func sample(id uint16, high uint32, s string) []byte {
	le := binary.LittleEndian
	raw := make([]byte, 16, 16+len(s)+1)
	le.PutUint16(raw, id)
	le.PutUint32(raw[8:], uint32(len(s)+1)<<16|16)
	le.PutUint32(raw[12:], high)
	raw = append(append(raw, s...), 0)
	rec := make([]byte, 36, 36+len(raw))
	le.PutUint32(rec, unix.PERF_RECORD_SAMPLE)
	le.PutUint32(rec[8:], 42)  // pid
	le.PutUint32(rec[12:], 42) // tid
	le.PutUint32(rec[32:], uint32(len(raw)))
	rec = append(rec, raw...)
	le.PutUint16(rec[6:], uint16(len(rec)))
	return rec
}

// TestSettleLost counts as lost the hits the events counted that made no
// sample, once the rings are read: read(2) of an eventfd, a counter of
// 8 bytes as a perf event's, stands for each event.
func TestSettleLost(t *testing.T) {
	var fds []int
	for range 2 {
		fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
		if err != nil {
			t.Skipf("requires eventfd: %v", err)
		}
		defer unix.Close(fd)
		fds = append(fds, fd)
	}
	count := func(hits ...uint64) {
		for i, n := range hits {
			var b [8]byte
			binary.NativeEndian.PutUint64(b[:], n)
			if _, err := unix.Write(fds[i], b[:]); err != nil {
				t.Fatal(err)
			}
		}
	}
	mem := make([]byte, os.Getpagesize())
	r := &ring{meta: (*unix.PerfEventMmapPage)(unsafe.Pointer(&mem[0]))}
	tr := &Tracer{fds: fds, rings: []*ring{r}, samples: 40}
	tr.lost.Store(50) // reported by PERF_RECORD_LOST

	// A sample the rings have not given yet: read them again.
	count(70, 30)
	r.meta.Data_head = 64
	if !tr.settleLost() {
		t.Error("settleLost with a record not read = false, want true")
	}
	r.tail = 64
	count(70, 30)
	if tr.settleLost() {
		t.Error("settleLost with the rings read = true, want false")
	}
	if got, want := tr.Lost(), uint64(100-40); got != want {
		t.Errorf("Lost() = %d, want %d", got, want)
	}
	// A count that cannot be read leaves the records' count.
	tr.lost.Store(50)
	if tr.settleLost() || tr.Lost() != 50 {
		t.Errorf("settleLost without counts: Lost() = %d, want 50", tr.Lost())
	}
}
