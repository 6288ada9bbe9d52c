package bpf

import (
	"bytes"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/sdtkit/sdtkit/pkg/hit"
)

// The event and its values are package hit's, which both backends give.
type (
	Event = hit.Event
	Kind  = hit.Kind
	Value = hit.Value
)

// Kinds of Value.
const (
	NotRead = hit.NotRead
	Int     = hit.Int
	Uint    = hit.Uint
	Float   = hit.Float
	String  = hit.String
)

var errShortEvent = errors.New("short event record")

// eventHeaderSize is the size of an event with every argument and no
// string; the numbers-only program writes only the arguments of the site,
// rounded up (see usdt.bpf.c), so its records can be shorter, down to
// eventArgsOffset plus the arguments.
const (
	eventHeaderSize = int(unsafe.Offsetof(usdtEvent{}.Data))
	eventArgsOffset = int(unsafe.Offsetof(usdtEvent{}.Args))
)

// decodeEvent decodes the ring buffer record b into ev; raw is scratch
// space. spec returns the spec of a site, nil if unknown. boot is the Unix time
// in nanoseconds at which the boot clock read zero.
func decodeEvent(b []byte, raw *usdtEvent, spec func(site uint32) *Spec, boot int64, ev *Event) error {
	if len(b) < eventArgsOffset || len(b) > int(unsafe.Sizeof(*raw)) {
		return fmt.Errorf("%w: %d bytes", errShortEvent, len(b))
	}
	// The record is a struct event, in host byte order, possibly cut
	// after its arguments.
	copy(unsafe.Slice((*byte)(unsafe.Pointer(raw)), unsafe.Sizeof(*raw)), b)
	if len(b) < eventArgsOffset+8*min(int(raw.Nargs), MaxArgs) {
		return fmt.Errorf("%w: %d bytes for %d arguments", errShortEvent, len(b), raw.Nargs)
	}
	var data []byte
	if len(b) > eventHeaderSize {
		data = b[eventHeaderSize:]
	}

	ev.Time = time.Unix(0, boot+int64(raw.Time))
	ev.PID, ev.TID, ev.CPU = raw.Pid, raw.Tid, raw.Cpu
	comm := unsafe.Slice((*byte)(unsafe.Pointer(&raw.Comm[0])), len(raw.Comm))
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	if ev.Comm != string(comm) {
		ev.Comm = string(comm)
	}
	ev.Site, ev.Probe = raw.SpecId, raw.ProbeId
	// The user stack comes first in data, then the strings.
	ev.Stack = ev.Stack[:0]
	if n := int(raw.Nframes); n > 0 {
		if 8*n > len(data) {
			return fmt.Errorf("%w: %d bytes for a stack of %d frames", errShortEvent, len(b), n)
		}
		for i := range n {
			ev.Stack = append(ev.Stack, *(*uint64)(unsafe.Pointer(&data[8*i])))
		}
		data = data[8*n:]
	}
	ev.StackCopy.Bytes = ev.StackCopy.Bytes[:0]
	ev.StackCopy.Regs = [4]uint64{}
	if n := int(raw.Copy); n > 0 {
		if n > len(data) || n < 32 {
			return fmt.Errorf("%w: %d bytes for a stack copy of %d", errShortEvent, len(b), n)
		}
		for i := range ev.StackCopy.Regs {
			ev.StackCopy.Regs[i] = *(*uint64)(unsafe.Pointer(&data[8*i]))
		}
		ev.StackCopy.Bytes = append(ev.StackCopy.Bytes, data[32:n]...)
		data = data[n:]
	}
	sp := spec(raw.SpecId)
	n := min(int(raw.Nargs), MaxArgs)
	ev.Args = ev.Args[:0]
	for i := 0; i < n; i++ {
		bit := uint16(1) << i
		v := Value{Kind: Uint, Bits: raw.Args[i], Size: 8}
		if sp != nil && i < int(sp.raw.Nargs) {
			a := &sp.raw.Args[i]
			v.Size = int(a.Size)
			switch {
			case a.Flags&flagFloat != 0:
				v.Kind = Float
			case a.Flags&flagSigned != 0:
				v.Kind = Int
			}
		}
		switch {
		case raw.Failed&bit != 0:
			v = Value{Kind: NotRead, Size: v.Size}
		case raw.Strs&bit != 0:
			j := bytes.IndexByte(data, 0)
			if j < 0 {
				return fmt.Errorf("%w: string of arg%d not terminated", errShortEvent, i)
			}
			v.Kind, v.Str, v.Truncated = String, string(data[:j]), raw.Trunc&bit != 0
			data = data[j+1:]
		}
		ev.Args = append(ev.Args, v)
	}
	return nil
}
