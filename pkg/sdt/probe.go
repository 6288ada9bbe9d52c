package sdt

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// A Probe is one probe of a Provider.
type Probe struct {
	p    *Provider
	name string
	full string // PROVIDER:NAME
	args []Type
	st   atomic.Pointer[state]
}

// state is where a loaded probe lives in the process. The zero state,
// idle, is that of a probe that is not loaded: its words are Go zeros.
type state struct {
	sema *uint32 // the word holding the semaphore, in its low 16 bits
	stub *uint32 // the first word of the probe's function
	orig uint32  // that word when no tracer is attached
	fn   uintptr // the probe's function
}

var (
	zeroWord uint32
	idle     = state{sema: &zeroWord, stub: &zeroWord}
)

// Name returns the probe's name.
func (pr *Probe) Name() string { return pr.name }

// Provider returns the probe's provider.
func (pr *Probe) Provider() *Provider { return pr.p }

// Args returns the types of the probe's arguments.
func (pr *Probe) Args() []Type { return append([]Type(nil), pr.args...) }

// String returns PROVIDER:NAME.
func (pr *Probe) String() string { return pr.full }

// Enabled reports whether a tracer is attached to the probe: its semaphore
// is raised, or its nop was replaced by a breakpoint. It is false while
// the provider is not loaded.
func (pr *Probe) Enabled() bool {
	s := pr.st.Load()
	return atomic.LoadUint32(s.sema)&semaMask != 0 || atomic.LoadUint32(s.stub) != s.orig
}

// Fire fires the probe with args, one per argument of the probe: any Go
// integer or a bool for the integer types (passed as a 64-bit value the
// tracer truncates to the argument's size), a string or []byte for
// String. A wrong number or type of arguments gives an *ArgError; a
// Provider that is not loaded, ErrNotLoaded. Firing without a tracer
// attached costs a call to an empty function: test Enabled first where
// computing the arguments costs more.
func (pr *Probe) Fire(args ...any) error {
	if len(args) != len(pr.args) {
		return &ArgError{Probe: pr.full, Index: -1, Msg: "wrong number of arguments"}
	}
	var regs [MaxArgs]uint64
	var keep [MaxArgs][]byte
	for i, t := range pr.args {
		v, ok := value(t, args[i], &keep[i])
		if !ok {
			return &ArgError{Probe: pr.full, Index: i, Msg: kindOf(args[i]) + " for " + t.String()}
		}
		regs[i] = v
	}
	pr.p.mu.RLock()
	defer pr.p.mu.RUnlock()
	s := pr.st.Load()
	if s.fn == 0 {
		return ErrNotLoaded
	}
	call(s.fn, &regs)
	runtime.KeepAlive(keep)
	return nil
}

// semaMask selects the semaphore in the word holding it.
var semaMask = func() uint32 {
	w := uint32(0xffff)
	if b := (*[4]byte)(unsafe.Pointer(&w)); b[0] == 0 {
		return 0xffff0000 // big-endian
	}
	return w
}()
