package attach

import (
	"errors"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"golang.org/x/sys/unix"
)

// Grouping by the user stack puts the pid in the key, hidden unless it is
// a key already, and each hit whose stack was not taken is counted by why.
func TestAggregationByStack(t *testing.T) {
	pid, comm, ustack := aggregate.Key{Kind: aggregate.KeyPID}, aggregate.Key{Kind: aggregate.KeyComm}, aggregate.Key{Kind: aggregate.KeyUStack}
	for _, tt := range []struct {
		by             []aggregate.Key
		stack, hidden  bool
		pidPart, parts int
	}{
		{nil, false, false, 0, 0},
		{[]aggregate.Key{comm}, false, false, 1, 1},
		{[]aggregate.Key{ustack}, true, true, 1, 2},
		{[]aggregate.Key{comm, ustack}, true, true, 2, 3},
		{[]aggregate.Key{ustack, pid}, true, false, 1, 2},
	} {
		a := &Aggregation{Mode: Count, By: tt.by}
		if a.ByStack() != tt.stack || a.hiddenPID() != tt.hidden || (tt.stack && a.pidPart() != tt.pidPart) {
			t.Errorf("by %v: ByStack %v, hiddenPID %v, pidPart %d, want %v, %v, %d", tt.by, a.ByStack(), a.hiddenPID(), a.pidPart(), tt.stack, tt.hidden, tt.pidPart)
		}
		if got := len(a.By) + map[bool]int{true: 1}[a.hiddenPID()]; got != tt.parts {
			t.Errorf("by %v: %d parts, want %d", tt.by, got, tt.parts)
		}
	}

	n := &stackNamer{}
	for _, err := range []error{unix.EEXIST, unix.ENOMEM, unix.EFAULT, errors.New("stack 3: key does not exist")} {
		if v := n.value(&bpf.AggEntry{StackErr: err, Count: 2}, 0, 0); v.Kind != 0 {
			t.Errorf("value of a stack not taken (%v) = %v, want null", err, v)
		}
	}
	if got, want := n.errors(), (StackErrors{Collided: 2, Full: 2, Other: 4}); got != want {
		t.Errorf("StackErrors = %+v, want %+v", got, want)
	}
}

// Hits folded from events have no stack taken in the kernel.
func TestAggregateEventsByStack(t *testing.T) {
	p := &Plan{}
	_, err := p.AggregateEvents(&Aggregation{Mode: Count, By: []aggregate.Key{{Kind: aggregate.KeyUStack}}}, nil)
	if !errors.Is(err, ErrStackInKernel) {
		t.Errorf("AggregateEvents by ustack = %v, want ErrStackInKernel", err)
	}
}
