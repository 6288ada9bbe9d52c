package tracefs

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testenv"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/launch"
)

func TestToggled(t *testing.T) {
	for _, tt := range []struct {
		available, enabled string
		want               string
		ok                 bool
	}{
		{"cpuset cpu io memory hugetlb pids rdma misc\n", "", "pids", true},
		{"cpuset cpu io memory pids\n", "cpu memory\n", "pids", true},
		{"cpuset cpu io memory pids\n", "pids\n", "cpuset", true},
		{"hugetlb\n", "", "hugetlb", true},
		{"cpu pids\n", "cpu pids\n", "", false},
		{"", "", "", false},
	} {
		got, ok := toggled(tt.available, tt.enabled)
		if got != tt.want || ok != tt.ok {
			t.Errorf("toggled(%q, %q) = %q, %v, want %q, %v", tt.available, tt.enabled, got, ok, tt.want, tt.ok)
		}
	}
}

// TestTraceCgroup traces the demo run in a cgroup of its own, and once
// outside it: the events are those of the run in the cgroup, every one,
// whatever the kernel had given the cgroups below the root before.
func TestTraceCgroup(t *testing.T) {
	testenv.RequireUprobes(t)
	if kernelBefore([2]int{5, 7}) {
		t.Skip("requires kernel 5.7 (PERF_SAMPLE_CGROUP, CLONE_INTO_CGROUP)")
	}
	cg, err := launch.NewCgroup("sdtkit-tracefs-test-*")
	if err != nil {
		t.Skip("requires a cgroup v2 to make a child of:", err)
	}
	defer cg.Remove()
	dir, err := os.Open(cg.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	prog := native(t)
	tr, err := Open(sitesOf(t, prog+":demo:tick"), &TraceOptions{
		Cgroup:        cg.Path,
		FlushInterval: 10 * time.Millisecond,
		Warn:          func(err error) { t.Log(err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if out, err := exec.Command(prog, "2", "1").CombinedOutput(); err != nil {
		t.Fatalf("demo outside the cgroup: %v: %s", err, out)
	}
	in := exec.Command(prog, "3", "1")
	in.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(dir.Fd())}
	if out, err := in.CombinedOutput(); err != nil {
		t.Fatalf("demo in the cgroup: %v: %s", err, out)
	}
	want := []int64{-3000, -3000, -2000, -2000, -1000, -1000} // two sites a tick
	var got []int64
	var ev hit.Event
	stop := time.AfterFunc(10*time.Second, tr.Stop) // Read then ends with io.EOF
	defer stop.Stop()
	for len(got) < len(want) {
		if err := tr.Read(&ev); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if int(ev.PID) != in.Process.Pid {
			t.Errorf("event of process %d, not of %d, which ran in the cgroup", ev.PID, in.Process.Pid)
			continue
		}
		got = append(got, int64(ev.Args[0].Bits))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("tick values %v, want %v", got, want)
	}
}
