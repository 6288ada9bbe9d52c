package attach

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
	"golang.org/x/sys/unix"
)

// ErrNoStacks is the error of AggregateEvents grouping by the user stack
// (the key ustack) events that carry none (Options.UStack 0).
var ErrNoStacks = errors.New("grouping by the user stack takes events that carry their stacks (Options.UStack)")

// ByStack reports whether a groups by the user stack (the key ustack).
func (a *Aggregation) ByStack() bool {
	return slices.Contains(a.By, aggregate.Key{Kind: aggregate.KeyUStack})
}

// hiddenPID reports whether the key of the BPF program has a part past
// those of By, the pid: the addresses of a stack are symbolized in the
// process they were taken in, and a stack of the same addresses is
// another in another process. Records of the same symbolized stack are
// one record.
func (a *Aggregation) hiddenPID() bool {
	return a.ByStack() && !slices.Contains(a.By, aggregate.Key{Kind: aggregate.KeyPID})
}

// pidPart returns the part of the BPF program's key that holds the pid,
// when grouping by the user stack.
func (a *Aggregation) pidPart() int {
	if i := slices.Index(a.By, aggregate.Key{Kind: aggregate.KeyPID}); i >= 0 {
		return i
	}
	return len(a.By)
}

// StackErrors counts the hits counted without their user stack, whose
// records have a null ustack, by why it could not be taken.
type StackErrors struct {
	// Collided counts the hits of stacks whose place in the kernel's
	// map of stacks was another's: the hash of their frames was the
	// same. The fewer the stacks are to the size of the map (the
	// Aggregation's MaxKeys), the fewer they collide.
	Collided uint64
	// Full counts the hits of new stacks that found the map of stacks
	// full: it holds each stack of the trace, up to MaxKeys.
	Full uint64
	// Other counts the hits with no user stack to walk, or whose stack
	// could not be read.
	Other uint64
}

// Total returns the hits counted without their stack.
func (s StackErrors) Total() uint64 { return s.Collided + s.Full + s.Other }

// stackNamer symbolizes the stacks of an aggregation's entries.
type stackNamer struct {
	syms *symbolize.Processes
	mu   sync.Mutex
	// names are the stacks symbolized whole, by pid and stack id: an
	// id names the same stack until the program is closed.
	names map[[2]uint64]ndjson.Value
	errs  StackErrors
}

func newStackNamer(pid int, debugDirs []string) *stackNamer {
	n := namerOf(symbolize.NewProcesses(symbolize.NewCache(&symbolize.Options{DebugDirs: debugDirs}, symbolize.DefaultCacheBytes), maxSymbolized))
	n.see(pid)
	return n
}

// namerOf returns the stackNamer that symbolizes with syms.
func namerOf(syms *symbolize.Processes) *stackNamer {
	return &stackNamer{syms: syms, names: make(map[[2]uint64]ndjson.Value)}
}

// see reads the maps of process pid, when not 0, now and again each
// time it has mapped files, so that its stacks are symbolized should it
// exit before the end of their interval.
func (n *stackNamer) see(pid int) {
	if pid != 0 {
		n.syms.Refresh(pid)
	}
}

// value returns the value of the ustack part of e, its stack symbolized
// in process pid, or null, counted in errs, when it was not taken.
func (n *stackNamer) value(e *bpf.AggEntry, id, pid uint64) ndjson.Value {
	n.mu.Lock()
	defer n.mu.Unlock()
	if e.StackErr != nil {
		switch {
		case errors.Is(e.StackErr, unix.EEXIST):
			n.errs.Collided += e.Count
		case errors.Is(e.StackErr, unix.ENOMEM):
			n.errs.Full += e.Count
		default:
			n.errs.Other += e.Count
		}
		return ndjson.Value{}
	}
	k := [2]uint64{pid, id}
	if v, ok := n.names[k]; ok {
		return v
	}
	frames := n.syms.Frames(nil, int(pid), e.Stack)
	stack := make([]ndjson.Frame, len(frames))
	whole := true
	for i, f := range frames {
		stack[i] = ndjson.Frame(f)
		whole = whole && (f.File != "" || f.Sym != "")
	}
	v := aggregate.StackValue(stack)
	if whole {
		n.names[k] = v
	}
	return v
}

func (n *stackNamer) errors() StackErrors {
	if n == nil {
		return StackErrors{}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.errs
}

// StackErrors returns the hits counted so far without their user stack
// when grouping by it, by why.
func (a *Aggregator) StackErrors() StackErrors { return a.stacks.errors() }

// String says how many hits were counted without their stack, and why.
func (s StackErrors) String() string {
	return fmt.Sprintf("%d hits counted without their stack (ustack null): %d collided with another stack in the map of stacks, %d found it full (both fewer with more keys), %d had no user stack to walk",
		s.Total(), s.Collided, s.Full, s.Other)
}
