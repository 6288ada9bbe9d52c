package process

import (
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"syscall"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// siteMem is the memory of a process that maps b at address base.
type siteMem struct {
	base uint64
	b    []byte
}

func (m *siteMem) ReadAt(p []byte, addr int64) (int, error) {
	i := addr - int64(m.base)
	if i < 0 || i+int64(len(p)) > int64(len(m.b)) {
		return 0, syscall.EIO
	}
	return copy(p, m.b[i:]), nil
}

// failedMem is memory that could not be opened.
type failedMem struct{ err error }

func (m failedMem) ReadAt([]byte, int64) (int, error) { return 0, m.err }

func TestSemaphoreAddr(t *testing.T) {
	const dev, inode = 0xfe00, 42
	id := FileID{Dev: dev, Inode: inode}
	data := Mapping{Start: 0x5000, End: 0x6000, Perms: "rw-p", Offset: 0x3000, Dev: dev, Inode: inode, Path: "/bin/x"}
	text := Mapping{Start: 0x1000, End: 0x2000, Perms: "r-xp", Offset: 0, Dev: dev, Inode: inode, Path: "/bin/x"}
	shared := data
	shared.Perms = "rw-s"
	shared.Start, shared.End = 0x4000, 0x5000
	other := data
	other.Inode = 7
	for _, tt := range []struct {
		name string
		maps []Mapping
		off  uint64
		addr uint64
		err  error
	}{
		{"private writable", []Mapping{text, data}, 0x3010, 0x5010, nil},
		{"first byte", []Mapping{data}, 0x3000, 0x5000, nil},
		{"last pair", []Mapping{data}, 0x3ffe, 0x5ffe, nil},
		// Shown, never written: the kernel refuses such a reference
		// counter.
		{"misaligned", []Mapping{data}, 0x3011, 0x5011, stapsdt.ErrMisaligned},
		{"last byte", []Mapping{data}, 0x3fff, 0, ErrSemaphoreUnmapped},
		{"read-only", []Mapping{text}, 0x10, 0, ErrSemaphoreUnmapped},
		{"shared before private", []Mapping{shared, data}, 0x3010, 0x5010, nil},
		{"shared alone", []Mapping{shared}, 0x3010, 0, ErrSemaphoreUnmapped},
		{"another file", []Mapping{other}, 0x3010, 0, ErrSemaphoreUnmapped},
		{"before the mapping", []Mapping{data}, 0x2ff0, 0, ErrSemaphoreUnmapped},
		{"past the mapping", []Mapping{data}, 0x4000, 0, ErrSemaphoreUnmapped},
		{"huge", []Mapping{data}, 1<<64 - 1, 0, ErrSemaphoreUnmapped},
		{"no mappings", nil, 0x3010, 0, ErrSemaphoreUnmapped},
	} {
		addr, err := SemaphoreAddr(tt.maps, id, tt.off)
		if addr != tt.addr || !errors.Is(err, tt.err) || tt.err == nil && err != nil {
			t.Errorf("%s: SemaphoreAddr(%#x) = %#x, %v, want %#x, %v", tt.name, tt.off, addr, err, tt.addr, tt.err)
		}
	}
}

// TestSiteReader reads sites of a file mapped with its text at 0x1000 and
// its data at 0x5000 (file offset 0x3000), the text holding a site at
// file offset 0x10 and the data a semaphore at file offset 0x3010.
func TestSiteReader(t *testing.T) {
	const dev, inode = 0xfe00, 42
	obj := &Object{Pid: 1, Path: "/bin/x", Dev: dev, Inode: inode, Mappings: []Mapping{
		{Start: 0x1000, End: 0x2000, Perms: "r-xp", Offset: 0, Dev: dev, Inode: inode},
		{Start: 0x5000, End: 0x6000, Perms: "rw-p", Offset: 0x3000, Dev: dev, Inode: inode},
	}}
	errMem := errors.New("process 1: open memory: permission denied")
	site := stapsdt.Site{Provider: "p", Name: "n", PCOffset: 0x10}
	withSema := func(off uint64, err error) stapsdt.Site {
		s := site
		s.Semaphore, s.SemaphoreOffset, s.SemaphoreOffsetErr = 0x4000+off, off, err
		return s
	}
	x86nop, arm64nop := []byte{0x90, 0x0f, 0x1f, 0x00}, []byte{0x1f, 0x20, 0x03, 0xd5}
	for _, tt := range []struct {
		name   string
		m      elf.Machine
		order  elf.Data
		site   stapsdt.Site
		file   []byte // at file offset 0x10
		text   []byte // at 0x1010
		sema   []byte // at 0x5010
		noMem  bool   // memory that could not be opened
		want   SiteState
		armErr error // matched by ArmedErr; nil for none
		semErr error // matched by Semaphore.Err
	}{
		{name: "not armed", m: elf.EM_X86_64, site: site, file: x86nop, text: x86nop,
			want: SiteState{Addr: 0x1010}},
		{name: "int3", m: elf.EM_X86_64, site: site, file: x86nop, text: []byte{0xcc, 0x0f, 0x1f, 0x00},
			want: SiteState{Addr: 0x1010, Armed: true, Breakpoint: []byte{0xcc}, Insn: []byte{0x90}}},
		// Linux 6.18 rewrites an x86-64 nop5 it hit into a call: armed,
		// with no breakpoint to restore.
		{name: "optimized into a call", m: elf.EM_X86_64, site: site, file: []byte{0x0f, 0x1f, 0x44, 0x00}, text: []byte{0xe8, 0x10, 0x20, 0x30},
			want: SiteState{Addr: 0x1010, Armed: true}},
		{name: "the file's own int3", m: elf.EM_X86_64, site: site, file: []byte{0xcc, 0x90}, text: []byte{0xcc, 0x90, 0, 0},
			want: SiteState{Addr: 0x1010}},
		{name: "the next instruction patched", m: elf.EM_X86_64, site: site, file: x86nop, text: []byte{0x90, 0xcc, 0, 0},
			want: SiteState{Addr: 0x1010}},
		{name: "arm64 BRK over a nop", m: elf.EM_AARCH64, site: site, file: arm64nop, text: []byte{0xa0, 0x00, 0x20, 0xd4},
			want: SiteState{Addr: 0x1010, Armed: true, Breakpoint: []byte{0xa0, 0x00, 0x20, 0xd4}, Insn: arm64nop}},
		{name: "arm64 BRK of the file", m: elf.EM_AARCH64, site: site, file: []byte{0xa0, 0x00, 0x20, 0xd4}, text: []byte{0xa0, 0x00, 0x20, 0xd4},
			want: SiteState{Addr: 0x1010}},
		{name: "riscv c.ebreak over a nop", m: elf.EM_RISCV, site: site, file: []byte{0x13, 0, 0, 0}, text: []byte{0x02, 0x90, 0, 0},
			want: SiteState{Addr: 0x1010, Armed: true, Breakpoint: []byte{0x02, 0x90}, Insn: []byte{0x13, 0}}},
		{name: "file ends at the site", m: elf.EM_AARCH64, site: site, file: arm64nop[:2], text: []byte{0xa0, 0x00, 0x20, 0xd4},
			want: SiteState{Addr: 0x1010}, armErr: io.ErrUnexpectedEOF},
		{name: "no pc offset", m: elf.EM_X86_64, site: stapsdt.Site{PCOffsetErr: &stapsdt.OffsetError{What: "pc", Addr: 0x10, Msg: "is in no PT_LOAD segment"}},
			file: x86nop, text: x86nop, armErr: &stapsdt.OffsetError{}},
		{name: "not mapped", m: elf.EM_X86_64, site: stapsdt.Site{PCOffset: 0x2010}, file: x86nop, text: x86nop,
			armErr: errors.New("pc offset 0x2010 is not mapped by the process")},
		{name: "memory not opened", m: elf.EM_X86_64, site: withSema(0x3010, nil), file: x86nop, text: x86nop, noMem: true,
			want:   SiteState{Addr: 0x1010, Semaphore: &SemaphoreState{Addr: 0x5010}},
			armErr: errMem, semErr: errMem},
		{name: "semaphore", m: elf.EM_X86_64, order: elf.ELFDATA2LSB, site: withSema(0x3010, nil), file: x86nop, text: x86nop, sema: []byte{3, 1},
			want: SiteState{Addr: 0x1010, Semaphore: &SemaphoreState{Addr: 0x5010, Value: 0x103}}},
		{name: "semaphore of a big-endian file", m: elf.EM_S390, order: elf.ELFDATA2MSB, site: withSema(0x3010, nil),
			file: []byte{0x07, 0x00, 0, 0}, text: []byte{0x07, 0x00, 0, 0}, sema: []byte{1, 3},
			want: SiteState{Addr: 0x1010, Semaphore: &SemaphoreState{Addr: 0x5010, Value: 0x103}}},
		// stapsdt finds the link-time address odd, the run-time one is:
		// shown, not a counter.
		{name: "misaligned", m: elf.EM_X86_64, order: elf.ELFDATA2LSB, site: withSema(0x3011, &stapsdt.OffsetError{What: "semaphore", Err: stapsdt.ErrMisaligned}),
			file: x86nop, text: x86nop, sema: []byte{0, 7, 0},
			want: SiteState{Addr: 0x1010, Semaphore: &SemaphoreState{Addr: 0x5011, Value: 7, Misaligned: true}}},
		{name: "misaligned at run time alone", m: elf.EM_X86_64, order: elf.ELFDATA2LSB, site: withSema(0x3011, nil),
			file: x86nop, text: x86nop, sema: []byte{0, 7, 0},
			want: SiteState{Addr: 0x1010, Semaphore: &SemaphoreState{Addr: 0x5011, Value: 7, Misaligned: true}}},
		{name: "semaphore in the text", m: elf.EM_X86_64, site: withSema(0x20, nil), file: x86nop, text: x86nop, sema: []byte{0, 0},
			want: SiteState{Addr: 0x1010, Semaphore: &SemaphoreState{}}, semErr: ErrSemaphoreUnmapped},
		{name: "semaphore with no file offset", m: elf.EM_X86_64, site: withSema(0, &stapsdt.OffsetError{What: "semaphore", Msg: "is in no PT_LOAD segment"}),
			file: x86nop, text: x86nop, sema: []byte{0, 0},
			want: SiteState{Addr: 0x1010, Semaphore: &SemaphoreState{}}, semErr: &stapsdt.OffsetError{}},
		{name: "semaphore not readable", m: elf.EM_X86_64, site: withSema(0x3ff0, nil), file: x86nop, text: x86nop, sema: []byte{0, 0},
			want: SiteState{Addr: 0x1010, Semaphore: &SemaphoreState{Addr: 0x5ff0}}, semErr: syscall.EIO},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := make([]byte, 0x4010+len(tt.sema))
			copy(b[0x10:], tt.text)
			copy(b[0x4010:], tt.sema)
			var mem io.ReaderAt = &siteMem{base: 0x1000, b: b}
			if tt.noMem {
				mem = failedMem{errMem}
			}
			file := make([]byte, 0x10+len(tt.file))
			copy(file[0x10:], tt.file)
			r := SiteReader{Mem: mem, Object: obj, File: &stapsdt.File{Machine: tt.m, ByteOrder: tt.order}, Data: bytes.NewReader(file)}
			got := r.Read(&tt.site)
			checkErr(t, "ArmedErr", got.ArmedErr, tt.armErr)
			got.ArmedErr = nil
			if s := got.Semaphore; s != nil {
				checkErr(t, "Semaphore.Err", s.Err, tt.semErr)
				s.Err = nil
			}
			if !equalState(got, tt.want) {
				t.Errorf("Read(%s) = %+v, semaphore %+v; want %+v, semaphore %+v", tt.name, got, got.Semaphore, tt.want, tt.want.Semaphore)
			}
		})
	}
}

// checkErr checks that err matches want: by errors.Is, by type for a
// *stapsdt.OffsetError, or by text for another error.
func checkErr(t *testing.T, what string, err, want error) {
	t.Helper()
	var oe *stapsdt.OffsetError
	switch {
	case want == nil:
		if err != nil {
			t.Errorf("%s = %v, want none", what, err)
		}
	case errors.As(want, &oe):
		if !errors.As(err, &oe) {
			t.Errorf("%s = %v, want a *stapsdt.OffsetError", what, err)
		}
	case !errors.Is(err, want) && (err == nil || err.Error() != want.Error()):
		t.Errorf("%s = %v, want %v", what, err, want)
	}
}

func equalState(a, b SiteState) bool {
	if a.Addr != b.Addr || a.Armed != b.Armed || !bytes.Equal(a.Breakpoint, b.Breakpoint) || !bytes.Equal(a.Insn, b.Insn) {
		return false
	}
	if a.Semaphore == nil || b.Semaphore == nil {
		return a.Semaphore == b.Semaphore
	}
	return *a.Semaphore == *b.Semaphore
}

func TestSemaphoreCounter(t *testing.T) {
	for _, tt := range []struct {
		s    SemaphoreState
		want bool
	}{
		{SemaphoreState{Addr: 0x5010, Value: 1}, true},
		{SemaphoreState{Addr: 0x5011, Value: 1, Misaligned: true}, false},
		{SemaphoreState{Addr: 0x5010, Err: syscall.EIO}, false},
		{SemaphoreState{Err: ErrSemaphoreUnmapped}, false},
	} {
		if got := tt.s.Counter(); got != tt.want {
			t.Errorf("%+v.Counter() = %v, want %v", tt.s, got, tt.want)
		}
	}
}
