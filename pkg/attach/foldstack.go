package attach

import (
	"encoding/binary"
	"slices"

	"github.com/sdtkit/sdtkit/pkg/hit"
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
