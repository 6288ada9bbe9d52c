package attach

import (
	"testing"

	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/probe"
)

// A filter is compiled for each probe against its first site's
// arguments; an argument a probe lacks names the probe.
func TestCompileFilter(t *testing.T) {
	two := manySites(4, 4, "-4@%eax 8@%rbx", "-4@%ecx 8@%rdx")
	one := manySites(2, 2, "1@%al", "1@%bl")
	one.Name = "one"
	pl := &planner{}
	_, sites := pl.plan([]*probe.Probe{two, one})

	e, err := filter.Parse(`arg0 < 0 || pid == 1`)
	if err != nil {
		t.Fatal(err)
	}
	progs, err := compileFilter(e, 2, sites)
	if err != nil {
		t.Fatalf("compileFilter: %v", err)
	}
	if len(progs) != 2 || progs[0] == nil || progs[1] == nil || len(progs[0].Insns) != 3 {
		t.Fatalf("compileFilter = %+v, want two programs of 3 instructions", progs)
	}
	// The note's sign and size are the kernel's to apply.
	if in := progs[0].Insns[0]; in.Key != filter.KeyArg || in.Size != 0 || in.Op != filter.OpLT {
		t.Errorf("first instruction %+v, want arg0 < as read", in)
	}

	e, _ = filter.Parse(`arg1 == 1`)
	_, err = compileFilter(e, 2, sites)
	if want := "column 1: arg1: prog:p:one: the probe has 1 argument, arg0"; err == nil || err.Error() != want {
		t.Errorf("compileFilter(arg1 == 1) = %v, want %s", err, want)
	}
	if progs, err := compileFilter(nil, 2, sites); progs != nil || err != nil {
		t.Errorf("compileFilter(nil) = %v, %v, want nil, nil", progs, err)
	}
}
