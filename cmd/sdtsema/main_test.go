package main

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"log"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
)

func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		args   string
		err    error
		action action
		dur    time.Duration
		all    bool
	}{
		{"-p 1 p:q", nil, show, 0, false},
		{"-p 1 --inc p:q", nil, inc, 0, false},
		{"-p 1 --dec /bin/x:p:q", nil, dec, 0, false},
		{"-p 1 --hold --for 2s p:q", nil, hold, 2 * time.Second, false},
		{"--all --inc /bin/x:p:*", nil, inc, 0, true},
		{"-h", flag.ErrHelp, 0, 0, false},
		{"p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1", cli.ErrUsage, 0, 0, false},
		{"-p 0 p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 --all /bin/x:p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 --inc --dec p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 --for 1s p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 --hold --for -1s p:q", cli.ErrUsage, 0, 0, false},
		{"--all --inc p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 p:q(int)", cli.ErrUsage, 0, 0, false},
		{"-p 1 nocolon", cli.ErrUsage, 0, 0, false},
		{"-x", cli.ErrUsage, 0, 0, false},
	} {
		var stderr bytes.Buffer
		c, err := parseArgs(strings.Fields(tt.args), &stderr)
		if !errors.Is(err, tt.err) {
			t.Errorf("parseArgs(%q) = %v, want %v (stderr %q)", tt.args, err, tt.err, stderr.String())
			continue
		}
		if err != nil {
			continue
		}
		if c.action != tt.action || c.dur != tt.dur || c.all != tt.all {
			t.Errorf("parseArgs(%q) = action %d, for %v, all %v, want %d, %v, %v", tt.args, c.action, c.dur, c.all, tt.action, tt.dur, tt.all)
		}
	}
}

func TestRunNoProcess(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"-p", "2147483647", "--inc", "p:q"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "process 2147483647: no such process") {
		t.Errorf("run(-p 2147483647) = %v, want no such process", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

// With --all, processes that may not be inspected are counted, and when
// none that could be maps the file, sdtsema says it could not look rather
// than that no process maps it.
func TestProcessesUninspected(t *testing.T) {
	denied := &process.PermissionError{Pid: 1, Op: "read maps", Hint: "needs CAP_SYS_PTRACE", Err: fs.ErrPermission}
	errStat := errors.New("stat ./x: no such file or directory")
	for _, tt := range []struct {
		name    string
		root    bool
		pids    []int
		err     error
		want    []int
		failed  bool
		wantErr error
		stderr  string
	}{
		{"none inspected", false, nil, &process.ScanError{Denied: 3, First: denied}, nil, true, nil,
			"sdtsema: ./x: no process sdtsema could inspect maps it; could not inspect 3 processes: permission denied; run as root"},
		{"one not inspected", false, []int{7}, &process.ScanError{Denied: 1, First: denied}, []int{7}, false, nil,
			"sdtsema: ./x: could not inspect 1 process: permission denied; run as root"},
		{"none inspected by root", true, nil, &process.ScanError{Denied: 1, First: denied}, nil, true, nil,
			"sdtsema: ./x: no process sdtsema could inspect maps it; could not inspect 1 process: permission denied\n"},
		{"none maps it", false, nil, nil, nil, true, nil, "sdtsema: ./x: no running process maps it\n"},
		{"bad file", false, nil, errStat, nil, false, errStat, ""},
	} {
		var stderr bytes.Buffer
		tl := &tool{
			c:       &config{all: true, specs: []probespec.Spec{{Path: "./x", Provider: "p", Name: "q"}}},
			log:     log.New(&stderr, "sdtsema: ", 0),
			root:    tt.root,
			mappers: func(string) ([]int, error) { return tt.pids, tt.err },
		}
		pids, _, err := tl.processes()
		if !slices.Equal(pids, tt.want) || !errors.Is(err, tt.wantErr) || tl.failed != tt.failed {
			t.Errorf("%s: processes() = %v, %v, failed %v, want %v, %v, failed %v", tt.name, pids, err, tl.failed, tt.want, tt.wantErr, tt.failed)
		}
		if !strings.HasPrefix(stderr.String(), tt.stderr) || tt.stderr == "" && stderr.Len() > 0 {
			t.Errorf("%s: stderr = %q, want %q", tt.name, stderr.String(), tt.stderr)
		}
	}
}
