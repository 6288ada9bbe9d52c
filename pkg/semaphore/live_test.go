package semaphore

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// mapFile maps a page of a new file into the test process and returns the
// mapping and a semaphore in it at file offset 0x10, with the value 3.
func mapFile(t *testing.T, flags, prot int) ([]byte, *Semaphore) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "obj")
	page := make([]byte, os.Getpagesize())
	binary.NativeEndian.PutUint16(page[0x10:], 3)
	if err := os.WriteFile(name, page, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if prot&unix.PROT_WRITE != 0 && flags&unix.MAP_SHARED != 0 {
		f.Close()
		if f, err = os.OpenFile(name, os.O_RDWR, 0); err != nil {
			t.Fatal(err)
		}
	}
	b, err := unix.Mmap(int(f.Fd()), 0, len(page), prot, flags)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(b) })
	var st syscall.Stat_t
	if err := syscall.Stat(name, &st); err != nil {
		t.Fatal(err)
	}
	return b, &Semaphore{
		Pid: os.Getpid(), File: name, Provider: "p", Name: "q", Sites: 1,
		Offset: 0x10, Addr: uint64(uintptr(unsafe.Pointer(&b[0x10]))),
		Dev: uint64(st.Dev), Inode: st.Ino, ByteOrder: binary.NativeEndian,
	}
}

// The test process may always write its own memory through /proc/self/mem.
func TestAddSelf(t *testing.T) {
	b, s := mapFile(t, unix.MAP_PRIVATE, unix.PROT_READ|unix.PROT_WRITE)
	p, err := Open(os.Getpid(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tt := range []struct {
		delta         int
		before, after uint16
	}{{1, 3, 4}, {-1, 4, 3}, {-1, 3, 2}} {
		before, after, err := p.Add(s, tt.delta)
		if err != nil || before != tt.before || after != tt.after {
			t.Errorf("Add(%+d) = %d, %d, %v, want %d, %d", tt.delta, before, after, err, tt.before, tt.after)
		}
	}
	if v := binary.NativeEndian.Uint16(b[0x10:]); v != 2 {
		t.Errorf("semaphore in memory = %d, want 2", v)
	}
	if v, err := p.Read(s); v != 2 || err != nil {
		t.Errorf("Read = %d, %v, want 2", v, err)
	}
	if b[0x0f] != 0 || b[0x12] != 0 {
		t.Errorf("neighbouring bytes changed: % x", b[0x0e:0x14])
	}
}

// Add refuses, and writes nothing, where the kernel would not keep a
// reference counter either.
func TestAddRefused(t *testing.T) {
	for _, tt := range []struct {
		name        string
		flags, prot int
		adjust      func(*Semaphore)
	}{
		{"shared", unix.MAP_SHARED, unix.PROT_READ | unix.PROT_WRITE, nil},
		{"read-only", unix.MAP_PRIVATE, unix.PROT_READ, nil},
		{"odd", unix.MAP_PRIVATE, unix.PROT_READ | unix.PROT_WRITE, func(s *Semaphore) { s.Addr++; s.Offset++ }},
		{"other inode", unix.MAP_PRIVATE, unix.PROT_READ | unix.PROT_WRITE, func(s *Semaphore) { s.Inode++ }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, s := mapFile(t, tt.flags, tt.prot)
			if tt.adjust != nil {
				tt.adjust(s)
			}
			p, err := Open(os.Getpid(), true)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, _, err = p.Add(s, 1)
			var re *RefusedError
			if !errors.As(err, &re) || !errors.Is(err, ErrRefused) {
				t.Errorf("Add = %v, want a *RefusedError", err)
			}
			want := []byte{0, 0, 3, 0, 0, 0}
			if binary.NativeEndian.Uint16([]byte{3, 0}) != 3 {
				want = []byte{0, 0, 0, 3, 0, 0}
			}
			if got := b[0x0e:0x14]; string(got) != string(want) {
				t.Errorf("bytes after refusal = % x, want % x", got, want)
			}
		})
	}
}

func TestFindNoProcess(t *testing.T) {
	_, err := Find(1 << 30)
	if !errors.Is(err, process.ErrNoProcess) {
		t.Errorf("Find(1<<30) = %v, want ErrNoProcess", err)
	}
}
