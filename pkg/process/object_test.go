package process

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testMaps is the maps of a process with an executable, a library mapped
// twice, a deleted library and a memfd, among anonymous memory.
const testMaps = `555555554000-555555555000 r--p 00000000 fe:00 100                        /usr/bin/demo
555555555000-555555556000 r-xp 00001000 fe:00 100                        /usr/bin/demo
555555556000-555555557000 r--p 00002000 fe:00 100                        /usr/bin/demo
555555557000-555555558000 r--p 00002000 fe:00 100                        /usr/bin/demo
555555558000-555555559000 rw-p 00003000 fe:00 100                        /usr/bin/demo
555555559000-55555557a000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000001000 r--p 00000000 fe:00 200                        /usr/lib/libx.so
7f0000001000-7f0000003000 r-xp 00001000 fe:00 200                        /usr/lib/libx.so
7f0000003000-7f0000004000 rw-s 00003000 fe:00 200                        /usr/lib/libx.so
7f0000004000-7f0000005000 rw-p 00003000 fe:00 200                        /usr/lib/libx.so
7f0000005000-7f0000006000 rw-p 00000000 00:00 0 
7f0000010000-7f0000012000 r-xp 00000000 fe:00 300                        /tmp/gone.so (deleted)
7f0000020000-7f0000022000 r-xp 00001000 00:01 400                        /memfd:jit (deleted)
7f0000030000-7f0000031000 rw-p 00000000 00:00 17                         anon_inode:[perf_event]
7ffd2a5f1000-7ffd2a5f3000 r-xp 00000000 00:00 0                          [vdso]
`

func parseTestMaps(t *testing.T) []Mapping {
	t.Helper()
	maps, err := ParseMaps(strings.NewReader(testMaps))
	if err != nil {
		t.Fatal(err)
	}
	return maps
}

func TestGroupObjects(t *testing.T) {
	// No process noPID exists, so every path is unreachable and falls back
	// to map_files.
	objs := groupObjects(noPID, parseTestMaps(t), func(m Mapping) string { return hostPath(noPID, m) })
	type summary struct {
		Path, HostPath string
		Inode          uint64
		Starts         []uint64
	}
	var got []summary
	for _, o := range objs {
		s := summary{Path: o.Path, HostPath: o.HostPath, Inode: o.Inode}
		for _, m := range o.Mappings {
			s.Starts = append(s.Starts, m.Start)
		}
		got = append(got, s)
		if o.Pid != noPID {
			t.Errorf("object %s: Pid = %d, want %d", o.Path, o.Pid, noPID)
		}
	}
	want := []summary{
		{"/usr/bin/demo", "/proc/1073741824/map_files/555555554000-555555555000", 100, []uint64{0x555555554000, 0x555555555000, 0x555555556000, 0x555555557000, 0x555555558000}},
		{"/usr/lib/libx.so", "/proc/1073741824/map_files/7f0000000000-7f0000001000", 200, []uint64{0x7f0000000000, 0x7f0000001000, 0x7f0000003000, 0x7f0000004000}},
		{"/tmp/gone.so (deleted)", "/proc/1073741824/map_files/7f0000010000-7f0000012000", 300, []uint64{0x7f0000010000}},
		{"/memfd:jit (deleted)", "/proc/1073741824/map_files/7f0000020000-7f0000022000", 400, []uint64{0x7f0000020000}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groupObjects(testMaps) =\n%+v\nwant\n%+v", got, want)
	}
}

func TestHostPath(t *testing.T) {
	pid := os.Getpid()
	root := fmt.Sprintf("/proc/%d/root", pid)
	mapFiles := fmt.Sprintf("/proc/%d/map_files/7f00-ab000", pid)
	for _, tt := range []struct {
		path string
		want string
	}{
		{"/proc/self/exe", root + "/proc/self/exe"},
		{"/usr/lib/libc.so.6 (deleted)", mapFiles},
		{"/memfd:x", mapFiles},
		{"/memfd:x (deleted)", mapFiles},
		{"/no/such/file", mapFiles},
	} {
		m := Mapping{Start: 0x7f00, End: 0xab000, Inode: 1, Path: tt.path}
		if got := hostPath(pid, m); got != tt.want {
			t.Errorf("hostPath(%d, %q) = %q, want %q", pid, tt.path, got, tt.want)
		}
	}
}

func TestAddr(t *testing.T) {
	objs := groupObjects(1, parseTestMaps(t), func(Mapping) string { return "" })
	demo, lib := &objs[0], &objs[1]
	for _, tt := range []struct {
		name     string
		o        *Object
		off      uint64
		addr     uint64
		ok       bool
		writable uint64
		wok      bool
	}{
		{name: "header", o: demo, off: 0, addr: 0x555555554000, ok: true},
		{name: "text", o: demo, off: 0x10a8, addr: 0x5555555550a8, ok: true},
		{name: "text end", o: demo, off: 0x1fff, addr: 0x555555555fff, ok: true},
		// Offset 0x2000 is mapped twice (RELRO split); the first wins.
		{name: "rodata", o: demo, off: 0x2010, addr: 0x555555556010, ok: true},
		{name: "data", o: demo, off: 0x3020, addr: 0x555555558020, ok: true, writable: 0x555555558020, wok: true},
		{name: "past the file", o: demo, off: 0x4000},
		// The shared writable mapping comes first but semaphores live
		// only in the private one.
		{name: "shared and private", o: lib, off: 0x3008, addr: 0x7f0000003008, ok: true, writable: 0x7f0000004008, wok: true},
		{name: "lib text", o: lib, off: 0x1500, addr: 0x7f0000001500, ok: true},
		{name: "huge", o: lib, off: 1<<64 - 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if addr, ok := tt.o.Addr(tt.off); addr != tt.addr || ok != tt.ok {
				t.Errorf("Addr(%#x) = %#x, %v, want %#x, %v", tt.off, addr, ok, tt.addr, tt.ok)
			}
			if addr, err := tt.o.SemaphoreAddr(tt.off); addr != tt.writable || (err == nil) != tt.wok {
				t.Errorf("SemaphoreAddr(%#x) = %#x, %v, want %#x, error %v", tt.off, addr, err, tt.writable, !tt.wok)
			}
		})
	}
}

// A mapped file whose path has become a named pipe is refused at once.
func TestObjectOpenNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "lib.so")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	o := &Object{Pid: os.Getpid(), Path: "/usr/lib/lib.so", HostPath: fifo}
	done := make(chan error, 1)
	go func() {
		f, err := o.Open()
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		want := fmt.Sprintf("process %d: open mapped file /usr/lib/lib.so: open %s: is a named pipe", o.Pid, fifo)
		if err == nil || err.Error() != want {
			t.Errorf("Open() = %v, want %s", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open() blocks on a named pipe")
	}
}
