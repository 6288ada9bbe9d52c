package attach

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/hit"
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

// Hits folded from events group by the stacks the events carry
// (Options.UStack): without them, by none.
func TestAggregateEventsByStack(t *testing.T) {
	p := &Plan{}
	_, err := p.AggregateEvents(&Aggregation{Mode: Count, By: []aggregate.Key{{Kind: aggregate.KeyUStack}}}, nil)
	if !errors.Is(err, ErrNoStacks) {
		t.Errorf("AggregateEvents by ustack = %v, want ErrNoStacks", err)
	}

	p = foldPlan()
	p.opts.UStack = MaxStack
	// A pid no process has: its frames keep their bare addresses.
	const pid = 1 << 22
	at := func(tid uint32, v int64, stack ...uint64) Event {
		ev := hitAt(p, 0, 1, tid, v, false)
		ev.PID, ev.Stack = pid, stack
		return ev
	}
	var events []Event
	for i := range 7 {
		events = append(events, at(7, int64(i), 0x1000, 0x2000, 0x3000))
	}
	for i := range 3 {
		events = append(events, at(8, int64(-i), 0x1000, 0x2100, 0x3000))
	}
	events = append(events, at(9, 0), at(9, 0, 0x1000, 0x2200)) // no stack; another
	for _, tt := range []struct {
		name string
		agg  Aggregation
		want []string
	}{
		{
			"count",
			Aggregation{Mode: Count, By: []aggregate.Key{{Kind: aggregate.KeyUStack}}},
			[]string{
				`{"provider":"a","name":"start","by":{"ustack":[{"addr":4096},{"addr":8192},{"addr":12288}]},"count":7}`,
				`{"provider":"a","name":"start","by":{"ustack":[{"addr":4096},{"addr":8448},{"addr":12288}]},"count":3}`,
				`{"provider":"a","name":"start","by":{"ustack":[{"addr":4096},{"addr":8704}]},"count":1}`,
				`{"provider":"a","name":"start","by":{"ustack":null},"count":1}`,
			},
		},
		{
			"stats by tid and two frames",
			Aggregation{Mode: Stats, Of: aggregate.Key{Kind: aggregate.KeyArg}, By: []aggregate.Key{{Kind: aggregate.KeyTID}, {Kind: aggregate.KeyUStack}}, StackDepth: 2},
			[]string{
				`{"provider":"a","name":"start","stats":"arg0","by":{"tid":7,"ustack":[{"addr":4096},{"addr":8192}]},"count":7,"sum":21,"min":0,"max":6,"mean":3}`,
				`{"provider":"a","name":"start","stats":"arg0","by":{"tid":8,"ustack":[{"addr":4096},{"addr":8448}]},"count":3,"sum":-3,"min":-2,"max":0,"mean":-1}`,
				`{"provider":"a","name":"start","stats":"arg0","by":{"tid":9,"ustack":[{"addr":4096},{"addr":8704}]},"count":1,"sum":0,"min":0,"max":0,"mean":0}`,
				`{"provider":"a","name":"start","stats":"arg0","by":{"tid":9,"ustack":null},"count":1,"sum":0,"min":0,"max":0,"mean":0}`,
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &fakeSource{events: slices.Clone(events), stopped: make(chan struct{})}
			ag, err := p.AggregateEvents(&tt.agg, src)
			if err != nil {
				t.Fatal(err)
			}
			defer ag.Close()
			ag.Stop()
			got := collectJSON(t, ag)
			if !slices.Equal(got, tt.want) {
				t.Errorf("records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if got, want := ag.StackErrors(), (StackErrors{Other: 1}); got != want {
				t.Errorf("StackErrors() = %+v, want %+v", got, want)
			}
		})
	}
}

// A folder's stacks have ids up to its most, then none, as the kernel's
// map of stacks.
func TestFoldStacks(t *testing.T) {
	s := newFoldStacks(2, 0)
	for _, tt := range []struct {
		pid   uint32
		stack []uint64
		want  hit.Value
		err   error
	}{
		{1, []uint64{1, 2}, hit.Value{Kind: hit.Uint, Bits: 0, Size: 8}, nil},
		{2, []uint64{1, 2}, hit.Value{Kind: hit.Uint, Bits: 1, Size: 8}, nil}, // another process
		{1, []uint64{1, 2}, hit.Value{Kind: hit.Uint, Bits: 0, Size: 8}, nil},
		{1, []uint64{1, 3}, hit.Value{Kind: hit.NotRead, Bits: uint64(unix.ENOMEM), Size: 8}, unix.ENOMEM},
		{1, nil, hit.Value{Kind: hit.NotRead, Bits: uint64(unix.EFAULT), Size: 8}, unix.EFAULT},
	} {
		ev := &Event{Event: hit.Event{PID: tt.pid, Stack: tt.stack}}
		v := s.part(ev)
		if v != tt.want {
			t.Errorf("part(pid %d, %x) = %+v, want %+v", tt.pid, tt.stack, v, tt.want)
		}
		stack, err := s.stack(v)
		if err != tt.err || err == nil && !slices.Equal(stack, tt.stack) {
			t.Errorf("stack(%+v) = %x, %v, want %x, %v", v, stack, err, tt.stack, tt.err)
		}
	}
}
