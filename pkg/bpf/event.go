package bpf

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// An Event is one firing of a probe site.
type Event struct {
	Time  time.Time // when the probe fired
	PID   uint32    // process (thread group) id, see PID namespaces in the package doc
	TID   uint32    // thread id, likewise
	CPU   uint32
	Comm  string // command name of the thread
	Site  uint32 // the site, numbered from 0 in the order of Attach
	Probe uint32 // the probe id of the site's Spec
	Args  []Value
}

// A Kind tells how to interpret a Value.
type Kind uint8

const (
	NotRead Kind = iota // the argument could not be read
	Int                 // a signed integer
	Uint                // an unsigned integer
	Float               // a float or double
	String              // a NUL-terminated string, Bits holds its address
)

var kindNames = [...]string{NotRead: "not read", Int: "int", Uint: "uint", Float: "float", String: "string"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Value is one argument of an event.
type Value struct {
	Kind Kind
	// Bits is the argument as read: the integer (sign-extended for Int),
	// the IEEE 754 bits of a Float of Size bytes, or the address of a
	// String.
	Bits uint64
	Size int // bytes of the argument, 1, 2, 4 or 8
	// Str is the string of a String, cut at Options.StringSize bytes
	// when Truncated.
	Str       string
	Truncated bool
}

// Int returns the value as a signed integer.
func (v Value) Int() int64 { return int64(v.Bits) }

// As returns the low size bytes of the value, sign-extended when signed:
// the value read as an integer of another size.
func (v Value) As(size int, signed bool) uint64 { return argspec.Extend(v.Bits, size, signed) }

// Float returns the value of a Float.
func (v Value) Float() float64 {
	if v.Size == 4 {
		return float64(math.Float32frombits(uint32(v.Bits)))
	}
	return math.Float64frombits(v.Bits)
}

// String returns the value as it reads in C: an integer in decimal, a
// float in the shortest form that reads back the same, a string quoted
// with its address, "<not read>" for an argument that could not be read.
func (v Value) String() string {
	switch v.Kind {
	case NotRead:
		return "<not read>"
	case Int:
		return strconv.FormatInt(v.Int(), 10)
	case Float:
		bits := 64
		if v.Size == 4 {
			bits = 32
		}
		return strconv.FormatFloat(v.Float(), 'g', -1, bits)
	case String:
		s := strconv.Quote(v.Str)
		if v.Truncated {
			s += "..."
		}
		return s + " at " + "0x" + strconv.FormatUint(v.Bits, 16)
	}
	return strconv.FormatUint(v.Bits, 10)
}

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
