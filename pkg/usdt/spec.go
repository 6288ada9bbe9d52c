package usdt

import (
	"fmt"
	"structs"
	"sync"

	"github.com/cilium/ebpf"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
)

// SpecMap is the name of the map of include/bpf/usdt.bpf.h that holds the
// specs, by spec id: how to read the arguments of a site, and the cookie
// of its attachment.
const SpecMap = "sdt_usdt_specs"

// MaxArgs is the most arguments of a site that usdt.bpf.h reads, as with
// libbpf (BPF_USDT_MAX_ARG_CNT).
const MaxArgs = 12

// cArg and cSpec are struct __sdt_usdt_arg and struct __sdt_usdt_spec of
// usdt.bpf.h.
type cArg struct {
	_                        structs.HostLayout
	Val                      uint64
	Base, Index              int16
	Kind, Size, Flags, Shift uint8
	Scale                    uint8
	Pad                      [7]uint8
}

type cSpec struct {
	_             structs.HostLayout
	Args          [MaxArgs]cArg
	Cookie, PC    uint64
	IPOff, ArgCnt int16
	Pad           [4]uint8
}

// Flags of cArg.
const (
	flagSigned = 1
	flagBias   = 2
)

// newCSpec lays out s, the spec of args, with the attachment's cookie,
// as usdt.bpf.h reads it. An argument past MaxArgs is left out, as with
// libbpf; one that cannot be read keeps the size its note gives, for
// bpf_usdt_arg_size.
func newCSpec(s *bpf.Spec, args []argspec.Arg, cookie uint64) cSpec {
	c := cSpec{Cookie: cookie, PC: s.PC(), IPOff: bpf.IPOffset(), ArgCnt: int16(min(s.NumArgs(), MaxArgs))}
	for i := range int(c.ArgCnt) {
		l := s.Location(i)
		a := &c.Args[i]
		a.Val, a.Base, a.Index = l.Value, l.Base, l.Index
		a.Kind, a.Size, a.Shift, a.Scale = uint8(l.Kind), l.Size, l.Shift, l.Scale
		if l.Signed {
			a.Flags |= flagSigned
		}
		if l.Bias {
			a.Flags |= flagBias
		}
		if l.Kind == bpf.LocNone && i < len(args) && args[i].Size > 0 && args[i].Size <= 8 {
			a.Size = uint8(args[i].Size)
		}
	}
	return c
}

// specMap returns the map of specs that prog uses, or nil for a program
// that reads no argument or cookie.
func specMap(prog *ebpf.Program) (*ebpf.Map, error) {
	info, err := prog.Info()
	if err != nil {
		return nil, fmt.Errorf("program info: %w", err)
	}
	ids, ok := info.MapIDs()
	if !ok {
		return nil, fmt.Errorf("program info: no map ids: %w", ebpf.ErrNotSupported)
	}
	for _, id := range ids {
		m, err := ebpf.NewMapFromID(id)
		if err != nil {
			return nil, fmt.Errorf("map %d: %w", id, err)
		}
		if mi, err := m.Info(); err == nil && mi.Name == SpecMap {
			return m, nil
		}
		m.Close()
	}
	return nil, nil
}

// ids hands out ranges of spec ids, per map of specs, so that the
// attachments of one program, whose BPF cookies index the one map,
// never share one.
var ids = struct {
	sync.Mutex
	used map[ebpf.MapID][]bool
}{used: make(map[ebpf.MapID][]bool)}

// allocIDs reserves n consecutive ids below max in map id and returns
// the first.
func allocIDs(id ebpf.MapID, n, max int) (int, error) {
	ids.Lock()
	defer ids.Unlock()
	used := ids.used[id]
	if len(used) < max {
		used = append(used, make([]bool, max-len(used))...)
	}
	run := 0
	for i := range max {
		if used[i] {
			run = 0
			continue
		}
		if run++; run == n {
			first := i + 1 - n
			for j := first; j <= i; j++ {
				used[j] = true
			}
			ids.used[id] = used
			return first, nil
		}
	}
	return 0, fmt.Errorf("%d sites: %w (%d specs, BPF_USDT_MAX_SPEC_CNT)", n, ErrTooManySites, max)
}

// freeIDs releases the n ids from first.
func freeIDs(id ebpf.MapID, first, n int) {
	ids.Lock()
	defer ids.Unlock()
	used := ids.used[id]
	for i := first; i < first+n && i < len(used); i++ {
		used[i] = false
	}
}
