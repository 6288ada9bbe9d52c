package attach_test

import (
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testenv"

	"github.com/sdtkit/sdtkit/internal/testdemo"
)

// The examples need root and BPF, so they carry no Output comment, which
// would run them everywhere; TestExamples runs them where they can run
// and checks what they print.
func TestExamples(t *testing.T) {
	testenv.RequireUprobes(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 (the demo fixture is x86-64), not %s", runtime.GOARCH)
	}
	old := demo
	defer func() { demo = old }()
	var err error
	if demo, err = testdemo.Copy(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		f    func()
		want string
	}{
		{"Example", Example, "demo:tick 1\ndemo:tick -1\ndemo:tick 2\ndemo:tick -2\n"},
		{"Example_pid", Example_pid, "demo:tick 3 events\nexited; 0 lost\n"},
		{"Example_count", Example_count, "demo:tick 4 hits\ndemo:tick 4 hits\n"},
		{"Example_latency", Example_latency, "1 pair, 5 ENDs unmatched\n"},
		{"Example_command", Example_command, "demo:start 2\nexit status 0 <nil>\n"},
		{"Example_tracefs", Example_tracefs, "demo:tick 1\ndemo:tick -1\n"},
	} {
		if got := captureStdout(t, tt.f); got != tt.want {
			t.Errorf("%s printed %q, want %q", tt.name, got, tt.want)
		}
	}
}

// captureStdout returns what f writes to os.Stdout.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	defer func() { os.Stdout = old }()
	f()
	w.Close()
	return <-out
}
