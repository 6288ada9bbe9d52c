package process

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testenv"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// buildDemo compiles testdata/sdtdemo.c into dir.
func buildDemo(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("requires gcc")
	}
	exe := filepath.Join(dir, "sdtdemo")
	out, err := exec.Command("gcc", "-O1", "-o", exe, "testdata/sdtdemo.c").CombinedOutput()
	if bytes.Contains(out, []byte("sys/sdt.h")) {
		t.Skipf("requires sys/sdt.h (systemtap-sdt-dev): %s", out)
	}
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return exe
}

// startDemo runs exe until the end of the test and returns its pid once it
// has started.
func startDemo(t *testing.T, exe string) int {
	t.Helper()
	cmd := exec.Command(exe)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // sdtdemo exits at end of input
		cmd.Wait()
	})
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("%s: read %q, %v; want \"ready\\n\"", exe, line, err)
	}
	return cmd.Process.Pid
}

// findObject returns the object of process pid that is the file at path.
func findObject(t *testing.T, pid int, path string) *Object {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	maps, err := ReadMaps(pid)
	if err != nil {
		t.Fatal(err)
	}
	objs := Objects(pid, maps)
	for i := range objs {
		if objs[i].Inode == st.Ino && objs[i].Dev == st.Dev {
			return &objs[i]
		}
	}
	t.Fatalf("Objects(%d) has no object for %s (inode %d): %+v", pid, path, st.Ino, objs)
	return nil
}

// probeSite is where a probe lives in a process.
type probeSite struct {
	obj      *Object
	file     *stapsdt.File
	data     io.ReaderAt
	probe    *stapsdt.Site
	pc, sema uint64 // runtime addresses
}

// findSite opens the object through its HostPath and locates the probe
// sdtkit_test:tick in the process.
func findSite(t *testing.T, obj *Object) probeSite {
	t.Helper()
	f, err := stapsdt.Open(obj.HostPath)
	if err != nil {
		t.Fatalf("stapsdt.Open(%s): %v", obj.HostPath, err)
	}
	data, err := obj.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { data.Close() })
	for i := range f.Sites {
		p := &f.Sites[i]
		if p.Provider != "sdtkit_test" || p.Name != "tick" {
			continue
		}
		if p.PCOffsetErr != nil || p.SemaphoreOffsetErr != nil || !p.HasSemaphore() {
			t.Fatalf("probe %s:%s: pc offset %v, semaphore %#x offset %v", p.Provider, p.Name, p.PCOffsetErr, p.Semaphore, p.SemaphoreOffsetErr)
		}
		s := probeSite{obj: obj, file: f, data: data, probe: p}
		var ok bool
		if s.pc, ok = obj.Addr(p.PCOffset); !ok {
			t.Fatalf("Addr(%#x) found no mapping in %+v", p.PCOffset, obj.Mappings)
		}
		if s.sema, err = obj.SemaphoreAddr(p.SemaphoreOffset); err != nil {
			t.Fatalf("SemaphoreAddr(%#x): %v; mappings %+v", p.SemaphoreOffset, err, obj.Mappings)
		}
		return s
	}
	t.Fatalf("%s has no probe sdtkit_test:tick: %+v", obj.HostPath, f.Sites)
	return probeSite{}
}

// checkState checks, through a SiteReader and byte by byte, whether the
// site is armed and the semaphore value.
func (s probeSite) checkState(t *testing.T, mem *Mem, armed bool, wantSema uint16) {
	t.Helper()
	r := SiteReader{Mem: mem, Object: s.obj, File: s.file, Data: s.data}
	st := r.Read(s.probe)
	if st.Addr != s.pc || st.Armed != armed || st.ArmedErr != nil {
		t.Errorf("Read(tick) = addr %#x, armed %v, %v; want %#x, %v", st.Addr, st.Armed, st.ArmedErr, s.pc, armed)
	}
	if sem := st.Semaphore; sem == nil || sem.Addr != s.sema || sem.Value != wantSema || !sem.Counter() {
		t.Errorf("Read(tick).Semaphore = %+v, want a counter at %#x of %d", sem, s.sema, wantSema)
	}
	code := make([]byte, 4)
	if _, err := mem.ReadAt(code, int64(s.pc)); err != nil {
		t.Fatalf("read probe site: %v", err)
	}
	if got := IsBreakpoint(code, s.file.Machine); got != armed {
		t.Errorf("IsBreakpoint(% x at %#x, %v) = %v, want %v", code, s.pc, s.file.Machine, got, armed)
	}
	if runtime.GOARCH == "amd64" {
		want := byte(0x90) // nop
		if armed {
			want = 0xcc
			if !bytes.Equal(st.Breakpoint, []byte{0xcc}) || !bytes.Equal(st.Insn, []byte{0x90}) {
				t.Errorf("Read(tick) breakpoint % x over % x, want cc over 90", st.Breakpoint, st.Insn)
			}
		}
		if code[0] != want {
			t.Errorf("byte at probe site %#x = %#x, want %#x", s.pc, code[0], want)
		}
	}
	var b [2]byte
	if _, err := mem.ReadAt(b[:], int64(s.sema)); err != nil {
		t.Fatalf("read semaphore: %v", err)
	}
	if v := binary.NativeEndian.Uint16(b[:]); v != wantSema {
		t.Errorf("semaphore at %#x = %d, want %d", s.sema, v, wantSema)
	}
}

func TestLiveProcess(t *testing.T) {
	exe := buildDemo(t, t.TempDir())
	pid := startDemo(t, exe)
	if err := Exists(pid); err != nil {
		t.Fatalf("Exists(%d) = %v", pid, err)
	}
	obj := findObject(t, pid, exe)
	if want := fmt.Sprintf("/proc/%d/root%s", pid, exe); obj.HostPath != want {
		t.Errorf("HostPath = %q, want %q", obj.HostPath, want)
	}
	site := findSite(t, obj)
	mem, err := OpenMem(pid, false)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	site.checkState(t, mem, false, 0)

	t.Run("armed", func(t *testing.T) {
		testenv.RequireUprobes(t)
		detach := attachUprobe(t, "sdtkit_test", fmt.Sprintf("probe_%d", pid), exe, site.probe.PCOffset, site.probe.SemaphoreOffset)
		site.checkState(t, mem, true, 1)
		if err := detach(); err != nil {
			t.Fatalf("remove uprobe: %v", err)
		}
		site.checkState(t, mem, false, 0)
	})
}

func TestLiveWrite(t *testing.T) {
	exe := buildDemo(t, t.TempDir())
	pid := startDemo(t, exe)
	site := findSite(t, findObject(t, pid, exe))
	mem, err := OpenMem(pid, true)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	var one [2]byte
	binary.NativeEndian.PutUint16(one[:], 1)
	if _, err := mem.WriteAt(one[:], int64(site.sema)); err != nil {
		t.Fatalf("write semaphore: %v", err)
	}
	site.checkState(t, mem, false, 1)

	// The first page is never mapped.
	if _, err := mem.ReadAt(make([]byte, 1), 0x10); !errors.Is(err, syscall.EIO) {
		t.Errorf("ReadAt(address 0x10) error = %v, want EIO", err)
	}
}

func TestLiveDeleted(t *testing.T) {
	dir := t.TempDir()
	exe := buildDemo(t, dir)
	pid := startDemo(t, exe)
	obj := findObject(t, pid, exe)
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	maps, err := ReadMaps(pid)
	if err != nil {
		t.Fatal(err)
	}
	var found *Object
	objs := Objects(pid, maps)
	for i := range objs {
		if objs[i].Inode == obj.Inode && objs[i].Dev == obj.Dev {
			found = &objs[i]
		}
	}
	if found == nil {
		t.Fatalf("Objects(%d) lost the deleted executable: %+v", pid, objs)
	}
	if want := exe + " (deleted)"; found.Path != want {
		t.Errorf("Path = %q, want %q", found.Path, want)
	}
	if !strings.HasPrefix(found.HostPath, fmt.Sprintf("/proc/%d/map_files/", pid)) {
		t.Errorf("HostPath = %q, want one in map_files", found.HostPath)
	}
	f, err := found.Open()
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			t.Skipf("requires CAP_SYS_ADMIN: %v", err)
		}
		t.Fatal(err)
	}
	f.Close()
	site := findSite(t, found)
	mem, err := OpenMem(pid, false)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	site.checkState(t, mem, false, 0)
}
