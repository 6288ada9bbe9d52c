package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
)

const demo = "../../pkg/stapsdt/testdata/demo"

func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		want   error
		stderr string
	}{
		{[]string{"-n", "3", "x:p:q"}, nil, ""},
		{[]string{"x:p:q", "-n", "3", "-d", "1s", "y:p:*(str,_)"}, nil, ""},
		{[]string{"-p", "1", "p:q"}, nil, ""},
		{[]string{"-h"}, flag.ErrHelp, "usage: sdtattach"},
		{[]string{}, cli.ErrUsage, "no PROBE"},
		{[]string{"p:q"}, cli.ErrUsage, "PROVIDER:NAME needs -p PID"},
		{[]string{"-p", "0", "p:q"}, cli.ErrUsage, "not a process ID"},
		{[]string{"-d", "-1s", "x:p:q"}, cli.ErrUsage, "not a positive duration"},
		{[]string{"--strlen", "300", "x:p:q"}, cli.ErrUsage, "--strlen 300: not in [1, 254]"},
		{[]string{"--bufsize", "1048576", "x:p:q"}, nil, ""},
		{[]string{"--bufsize", "5000", "x:p:q"}, cli.ErrUsage, "--bufsize 5000: not a power of two"},
		{[]string{"--bufsize", "1024", "x:p:q"}, cli.ErrUsage, "--bufsize 1024: not a power of two of at least the page size"},
		{[]string{"--bufsize", "1099511627776", "x:p:q"}, cli.ErrUsage, "--bufsize 1099511627776: more than the largest ring buffer, 1073741824 (1 GiB)"},
		{[]string{"--bufsize", "1073741824", "x:p:q"}, nil, ""},
		{[]string{"x:p:q(int)"}, cli.ErrUsage, `unknown type "int"`},
		{[]string{"-x", "x:p:q"}, cli.ErrUsage, "flag provided but not defined"},
	} {
		var stderr bytes.Buffer
		_, err := parseArgs(tt.args, &stderr)
		if !errors.Is(err, tt.want) || tt.want == nil && err != nil {
			t.Errorf("parseArgs(%q) = %v, want %v", tt.args, err, tt.want)
		}
		if !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("parseArgs(%q) stderr = %q, want %q in it", tt.args, stderr.String(), tt.stderr)
		}
	}
}

func TestParseArgsFlagsAfterProbes(t *testing.T) {
	c, err := parseArgs([]string{"x:p:q", "-n", "3", "y:p:r", "--types", "f.d"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.count != 3 || c.typesFile != "f.d" || len(c.specs) != 2 || c.specs[1].Path != "y" {
		t.Errorf("parseArgs = %+v", c)
	}
}

func TestValue(t *testing.T) {
	typ := func(s string) probespec.Type {
		spec, err := probespec.Parse("p:q(" + s + ")")
		if err != nil {
			t.Fatal(err)
		}
		return spec.Types[0]
	}
	neg1 := bpf.Value{Kind: bpf.Int, Bits: ^uint64(0), Size: 4}
	for _, tt := range []struct {
		v    bpf.Value
		typ  string
		want any
	}{
		{neg1, "", int64(-1)},
		{neg1, "u32", uint64(0xffffffff)},
		{neg1, "u8", uint64(0xff)},
		{neg1, "s16", int64(-1)},
		{neg1, "u64", uint64(1<<64 - 1)},
		{neg1, "hex", "0xffffffff"},
		{bpf.Value{Kind: bpf.Uint, Bits: 1<<64 - 1, Size: 8}, "", uint64(1<<64 - 1)},
		{bpf.Value{Kind: bpf.Uint, Bits: 0x80, Size: 1}, "s8", int64(-128)},
		{bpf.Value{Kind: bpf.Uint, Bits: 0x1f, Size: 8}, "hex", "0x1f"},
		{bpf.Value{Kind: bpf.String, Bits: 0x1000, Size: 8, Str: "hi"}, "str", "hi"},
		{bpf.Value{Kind: bpf.NotRead, Size: 8}, "str", nil},
		{bpf.Value{Kind: bpf.NotRead, Size: 8}, "", nil},
		{bpf.Value{Kind: bpf.Float, Bits: 0x3ff8000000000000, Size: 8}, "", 1.5},
	} {
		var ty probespec.Type
		if tt.typ != "" {
			ty = typ(tt.typ)
		}
		want, err := json.Marshal(tt.want)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendValue(nil, tt.v, ty); string(got) != string(want) {
			t.Errorf("appendValue(%+v, %q) = %s, want %s", tt.v, tt.typ, got, want)
		}
	}
}

func TestOutputEvent(t *testing.T) {
	p := &probe{target: &target{name: "prog"}, provider: "p", name: "q"}
	plain := &site{probe: p, args: []argPlan{{}, {typ: probespec.Type{Kind: probespec.Drop}}, {typ: probespec.Type{Kind: probespec.String}}}}
	named := &site{probe: p, fields: true, args: []argPlan{{name: "n"}, {typ: probespec.Type{Kind: probespec.String}, name: "s"}}}
	var stdout, stderr bytes.Buffer
	o := newOutput(&stdout, []*site{plain, named}, log.New(&stderr, "sdtattach: ", 0))
	ev := bpf.Event{Time: time.Unix(1, 5), PID: 10, TID: 11, CPU: 1, Comm: `a"b`, Args: []bpf.Value{
		{Kind: bpf.Int, Bits: uint64(1<<64 - 7), Size: 4},
		{Kind: bpf.Uint, Bits: 9, Size: 8},
		{Kind: bpf.String, Str: "long\n", Truncated: true, Size: 8},
	}}
	if err := o.event(&ev); err != nil {
		t.Fatal(err)
	}
	ev.Site = 1
	ev.Args = []bpf.Value{{Kind: bpf.NotRead, Size: 8}, {Kind: bpf.String, Str: "<x>", Size: 8}}
	o.event(&ev)
	o.event(&ev)
	o.lostEvents(3)
	o.lostEvents(3)
	o.flush()
	want := `{"ts":1000000005,"pid":10,"tid":11,"comm":"a\"b","cpu":1,"provider":"p","name":"q","args":[-7,"long\n"],"truncated":[1]}
{"ts":1000000005,"pid":10,"tid":11,"comm":"a\"b","cpu":1,"provider":"p","name":"q","args":[null,"<x>"],"fields":{"n":null,"s":"<x>"}}
{"ts":1000000005,"pid":10,"tid":11,"comm":"a\"b","cpu":1,"provider":"p","name":"q","args":[null,"<x>"],"fields":{"n":null,"s":"<x>"}}
{"lost":3}
`
	if got := stdout.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if n := strings.Count(stderr.String(), "could not be read"); n != 1 {
		t.Errorf("stderr reports the unreadable argument %d times, want once:\n%s", n, stderr.String())
	}
	// Arguments count from 0 in messages, as in TYPES and args[].
	if !strings.Contains(stderr.String(), ": arg0 ") {
		t.Errorf("stderr does not name the unreadable argument arg0:\n%s", stderr.String())
	}
	if p.events != 3 || o.events != 3 {
		t.Errorf("counts = %d, %d, want 3", p.events, o.events)
	}
}

func TestNearMatches(t *testing.T) {
	names := []string{"demo:start", "demo:tick", "other:tick", "zz:unrelated"}
	for _, tt := range []struct {
		provider, name string
		want           string
	}{
		{"demo", "tikc", "demo:tick,demo:start"},
		{"dmeo", "tick", "demo:tick,other:tick"},
		{"x", "y", ""},
		{"*", "tock", "demo:tick,other:tick,demo:start,zz:unrelated"},
	} {
		got := strings.Join(nearMatches(tt.provider, tt.name, names, 5), ",")
		if got != tt.want {
			t.Errorf("nearMatches(%q, %q) = %q, want %q", tt.provider, tt.name, got, tt.want)
		}
	}
}

// specs parses probe specifications for tests.
func specs(t *testing.T, ss ...string) []probespec.Spec {
	t.Helper()
	var out []probespec.Spec
	for _, s := range ss {
		spec, err := probespec.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, spec)
	}
	return out
}

func TestSelectAndPlan(t *testing.T) {
	ts := &targets{}
	probes, err := selectProbes(specs(t, demo+":demo:tick(u64)", demo+":demo:*(s8,str)"), ts.fileTargets)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 2 || probes[0].name != "tick" || len(probes[0].sites) != 2 || probes[1].name != "start" {
		t.Fatalf("selectProbes = %v", probes)
	}
	if len(ts.list) != 1 {
		t.Errorf("demo opened as %d targets, want 1", len(ts.list))
	}
	src, err := os.ReadFile("../../pkg/stapsdt/testdata/demo.d")
	if err != nil {
		t.Fatal(err)
	}
	provs, err := dtrace.Parse("demo.d", src)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	atts, sites := plan(probes, providerTypes(provs), log.New(&stderr, "", 0))
	if len(atts) != 1 || len(atts[0].sites) != 3 || len(sites) != 3 {
		t.Fatalf("plan = %d attachments, %d sites", len(atts), len(sites))
	}
	for i, s := range atts[0].sites {
		if s.RefCtrOffset == 0 {
			t.Errorf("site %d has no semaphore", i)
		}
	}
	// tick keeps the types of the first specification that gives some;
	// start those of the second, before those of the .d file.
	if got := sites[0].args[0].typ; got != (probespec.Type{Kind: probespec.Int, Size: 8}) {
		t.Errorf("tick arg 0 = %v", got)
	}
	start := sites[2]
	if start.probe.name != "start" || start.args[0].typ.String() != "s8" || start.args[1].typ.Kind != probespec.String {
		t.Errorf("start args = %+v", start.args)
	}
	if !start.fields || start.args[1].name != "arg1" {
		t.Errorf("start fields = %v, names %+v", start.fields, start.args)
	}
}

func TestSelectNotFound(t *testing.T) {
	ts := &targets{}
	_, err := selectProbes(specs(t, demo+":demo:tikc"), ts.fileTargets)
	if err == nil || !strings.Contains(err.Error(), "near matches: demo:tick") {
		t.Errorf("selectProbes(tikc) = %v, want near matches", err)
	}
	_, err = selectProbes(specs(t, "/nonexistent/x:p:q"), ts.fileTargets)
	if err == nil {
		t.Errorf("selectProbes(missing file) = nil error")
	}
}

func TestRunWithoutPrivilege(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("requires a user other than root")
	}
	err := run([]string{demo + ":demo:tick"}, io.Discard, io.Discard)
	if !errors.Is(err, bpf.ErrPermission) {
		t.Errorf("run as euid %d = %v, want %v", os.Geteuid(), err, bpf.ErrPermission)
	}
}

func TestAttachError(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	noRefCtr := filepath.Join(dir, "norefctr")
	for _, d := range []string{filepath.Join(full, "format"), filepath.Join(noRefCtr, "format")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(full, "format", "ref_ctr_offset"), []byte("config:32-63\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notSupported := fmt.Errorf("attach prog: uprobe ref_ctr_offset: %w", bpf.ErrNotSupported)
	other := errors.New("attach prog: bad address")
	defer func(old string) { uprobePMU = old }(uprobePMU)
	for _, tt := range []struct {
		pmu        string
		err        error
		semaphores bool
		want       string // in the message; "" for the error unchanged
	}{
		{filepath.Join(dir, "none"), other, false, "kernel without uprobes (CONFIG_UPROBE_EVENTS, Linux 4.17): "},
		{noRefCtr, notSupported, true, "kernel without uprobe ref_ctr_offset to raise probe semaphores (Linux 4.20): "},
		{noRefCtr, notSupported, false, ""},
		{noRefCtr, other, true, ""},
		{full, notSupported, true, ""},
	} {
		uprobePMU = tt.pmu
		got := attachError(tt.err, tt.semaphores)
		if !errors.Is(got, tt.err) {
			t.Errorf("attachError(%v, %v) with %s = %v, does not wrap it", tt.err, tt.semaphores, tt.pmu, got)
		}
		if tt.want == "" && got != tt.err || !strings.HasPrefix(got.Error(), tt.want) {
			t.Errorf("attachError(%v, %v) with %s = %q, want %q before it", tt.err, tt.semaphores, tt.pmu, got, tt.want)
		}
	}
}

// TestExitedError checks that an error of a -p process that has exited
// says so, and that other errors pass unchanged.
func TestExitedError(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("requires true: %v", err)
	}
	pid := cmd.Process.Pid
	cause := errors.New("stat executable: /proc/N/root/x: no such file or directory")
	for _, tt := range []struct {
		pid  int
		want string
	}{
		{pid, fmt.Sprintf("process %d exited while attaching", pid)},
		{os.Getpid(), cause.Error()},
		{0, cause.Error()},
	} {
		if got := exitedError(tt.pid, cause); got.Error() != tt.want {
			t.Errorf("exitedError(%d, %q) = %q, want %q", tt.pid, cause, got, tt.want)
		}
	}
	gone := fmt.Errorf("process %d: %w", pid, process.ErrNoProcess)
	if got := exitedError(pid, gone); got != gone {
		t.Errorf("exitedError(%d, %q) = %q, want it unchanged", pid, gone, got)
	}
}
