package attach

import (
	"encoding/binary"
	"slices"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
	"golang.org/x/sys/unix"
)

// foldStacks gives the stacks events carry (Options.UStack) the ids a
// folder keys its entries by, as the kernel's map of stacks gives the
// stacks it walks theirs: the same addresses in the same process have
// the same id for the whole trace, and at most max stacks have one.
type foldStacks struct {
	max    int
	depth  int               // the most frames kept, all if 0
	ids    map[string]uint64 // by pid and addresses
	stacks [][]uint64        // by id
	buf    []byte
	// seen, when not nil, is told of each stack given an id.
	seen func(pid uint32, stack []uint64)
}

func newFoldStacks(max, depth int) *foldStacks {
	return &foldStacks{max: max, depth: depth, ids: make(map[string]uint64)}
}

// part returns the ustack part of a key of ev: its stack's id, or, when
// it has none, a part not read whose Bits are why (see stackErr).
func (s *foldStacks) part(ev *Event) hit.Value {
	stack := ev.Stack
	if s.depth > 0 && len(stack) > s.depth {
		stack = stack[:s.depth]
	}
	if len(stack) == 0 {
		return hit.Value{Kind: hit.NotRead, Bits: uint64(unix.EFAULT), Size: 8}
	}
	b := binary.LittleEndian.AppendUint32(s.buf[:0], ev.PID)
	for _, a := range stack {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	s.buf = b
	id, ok := s.ids[string(b)]
	if !ok {
		if len(s.stacks) >= s.max {
			return hit.Value{Kind: hit.NotRead, Bits: uint64(unix.ENOMEM), Size: 8}
		}
		id = uint64(len(s.stacks))
		s.ids[string(b)] = id
		s.stacks = append(s.stacks, slices.Clone(stack))
		if s.seen != nil {
			s.seen(ev.PID, s.stacks[id])
		}
	}
	return hit.Value{Kind: hit.Uint, Bits: id, Size: 8}
}

// stack returns the addresses of the stack of part v, or why it has
// none, as bpf.AggEntry holds them.
func (s *foldStacks) stack(v hit.Value) ([]uint64, error) {
	if v.Kind == hit.NotRead {
		return nil, unix.Errno(v.Bits)
	}
	return s.stacks[v.Bits], nil
}

// warmer returns a seen function for foldStacks that places each new
// stack in the maps of its process with syms, which reads the maps
// again for an address they lack, on a goroutine of its own, until done
// is closed: the events are not held up by the reading, and a stack
// that comes while the goroutine is busy with 64 others is left to be
// placed when its record is written.
func warmer(syms *symbolize.Processes, done <-chan struct{}) func(pid uint32, stack []uint64) {
	type seen struct {
		pid   int
		stack []uint64
	}
	ch := make(chan seen, 64)
	go func() {
		for {
			select {
			case s := <-ch:
				syms.Frames(nil, s.pid, s.stack)
			case <-done:
				return
			}
		}
	}()
	return func(pid uint32, stack []uint64) {
		select {
		case ch <- seen{int(pid), stack}:
		default:
		}
	}
}
