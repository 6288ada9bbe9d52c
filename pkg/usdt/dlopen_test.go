package usdt_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testdlopen"
	"github.com/sdtkit/sdtkit/pkg/launch"
	"github.com/sdtkit/sdtkit/pkg/usdt"
)

// TestDlopen attaches with Options.Dlopen to the probes of a library a
// process loads later with dlopen, by the pid of a running process and
// for a command traced from its first instruction: the probe of its
// constructor, which runs before dlopen returns, and one fired after
// are both read, with the attachment's cookie, though no object of the
// process had them at Attach.
func TestDlopen(t *testing.T) {
	coll := loadForms(t)
	prog, lib := testdlopen.Build(t)
	for _, tt := range []struct {
		name   string
		launch bool
	}{{"pid", false}, {"command", true}} {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			var (
				pid     int
				libs    []string
				release func() error
				wait    func() error
			)
			if tt.launch {
				c, err := launch.Start([]string{prog, lib}, &launch.Options{Stdin: r})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Kill()
				pid, libs, release = c.Pid, c.Libraries, c.Release
				wait = func() error {
					status, err := c.Wait()
					if err == nil && status != 0 {
						err = fmt.Errorf("status %d", status)
					}
					return err
				}
			} else {
				cmd := exec.Command(prog, lib)
				cmd.Stdin, cmd.Stderr = r, os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				pid, release, wait = cmd.Process.Pid, func() error { return nil }, cmd.Wait
			}
			var warned []error
			l, err := usdt.Attach(coll.Programs["forms"], "", "plug", "*", &usdt.Options{PID: pid, Libraries: libs, Dlopen: true, Cookie: 9,
				Warn: func(err error) { warned = append(warned, err) }})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if n := l.Sites(); n != 0 {
				t.Errorf("Sites() = %d before dlopen, want 0", n)
			}
			if len(warned) == 0 {
				t.Errorf("Attach: no warning that plug:* was waited for")
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteString("go\n"); err != nil {
				t.Fatal(err)
			}
			if err := wait(); err != nil {
				t.Fatalf("%s: %v", prog, err)
			}
			hits := readAll[hit](t, coll.Maps["hits"], 2)
			for i, want := range [][]int64{{7}, {55, 110}} {
				h := hits[i]
				if h.Cookie != 9 || int(h.Cnt) != len(want) {
					t.Errorf("hit %d: cookie %d, %d arguments, want 9 and %d", i, h.Cookie, h.Cnt, len(want))
					continue
				}
				for j, v := range want {
					if h.Err[j] != 0 || h.Val[j] != v {
						t.Errorf("hit %d: arg%d = %d (error %d), want %d", i, j, h.Val[j], h.Err[j], v)
					}
				}
			}
			if n := l.Sites(); n != 2 {
				t.Errorf("Sites() = %d after dlopen, want 2", n)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
