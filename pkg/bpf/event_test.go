package bpf

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
)

// rawEvent lays out a struct event by hand, as usdt.bpf.c documents it.
func rawEvent(nargs, failed, strs, trunc uint16, args []uint64, data string) []byte {
	b := make([]byte, 152, 152+len(data))
	le := binary.LittleEndian
	le.PutUint64(b[0:], 5e9)  // 5 s after boot
	le.PutUint32(b[8:], 100)  // pid
	le.PutUint32(b[12:], 101) // tid
	le.PutUint32(b[16:], 1)   // cpu
	le.PutUint32(b[20:], 1)   // site
	le.PutUint32(b[24:], 9)   // probe
	le.PutUint16(b[28:], nargs)
	le.PutUint16(b[30:], failed)
	le.PutUint16(b[32:], strs)
	le.PutUint16(b[34:], trunc)
	copy(b[40:56], "demo\x00junk")
	for i, a := range args {
		le.PutUint64(b[56+8*i:], a)
	}
	return append(b, data...)
}

func TestDecodeEvent(t *testing.T) {
	if eventHeaderSize != 152 {
		t.Fatalf("struct event header is %d bytes, want 152", eventHeaderSize)
	}
	var spec Spec
	spec.raw.Nargs = 5
	spec.raw.Args[0] = usdtArg{Size: 4, Flags: flagSigned}
	spec.raw.Args[1] = usdtArg{Size: 8}
	spec.raw.Args[2] = usdtArg{Size: 8, Flags: flagString}
	spec.raw.Args[3] = usdtArg{Size: 8, Flags: flagFloat}
	spec.raw.Args[4] = usdtArg{Size: 8, Flags: flagString}
	specs := func(site uint32) *Spec {
		if site == 1 {
			return &spec
		}
		return nil
	}
	b := rawEvent(5, 1<<1, 1<<2|1<<4, 1<<4,
		[]uint64{u64(-3), 0, 0x7f00, math.Float64bits(2.5), 0x7f10}, "/bin/demo\x00abc\x00")
	var ev Event
	var raw usdtEvent
	if err := decodeEvent(b, &raw, specs, 1e18, &ev); err != nil {
		t.Fatal(err)
	}
	want := Event{
		Time: time.Unix(0, 1e18+5e9), PID: 100, TID: 101, CPU: 1, Comm: "demo", Site: 1, Probe: 9,
		Args: []Value{
			{Kind: Int, Bits: u64(-3), Size: 4},
			{Kind: NotRead, Size: 8},
			{Kind: String, Bits: 0x7f00, Size: 8, Str: "/bin/demo"},
			{Kind: Float, Bits: math.Float64bits(2.5), Size: 8},
			{Kind: String, Bits: 0x7f10, Size: 8, Str: "abc", Truncated: true},
		},
	}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("decodeEvent = %+v\nwant %+v", ev, want)
	}
	if ev.Args[0].Int() != -3 || ev.Args[3].Float() != 2.5 {
		t.Errorf("Int() = %d, Float() = %v, want -3, 2.5", ev.Args[0].Int(), ev.Args[3].Float())
	}

	// Without a spec, values are unsigned 8-byte integers.
	b = rawEvent(2, 0, 0, 0, []uint64{1, 2}, "")
	binary.LittleEndian.PutUint32(b[20:], 3)
	if err := decodeEvent(b, &raw, specs, 0, &ev); err != nil {
		t.Fatal(err)
	}
	if want := []Value{{Kind: Uint, Bits: 1, Size: 8}, {Kind: Uint, Bits: 2, Size: 8}}; !reflect.DeepEqual(ev.Args, want) {
		t.Errorf("decodeEvent without spec: args = %+v, want %+v", ev.Args, want)
	}
}

// TestDecodeEventShort decodes the records of the numbers-only program,
// which end after the arguments of the site, rounded up.
func TestDecodeEventShort(t *testing.T) {
	var ev Event
	var raw usdtEvent
	none := func(uint32) *Spec { return nil }
	for _, n := range []int{3, 4, MaxArgs} {
		b := rawEvent(3, 0, 0, 0, []uint64{7, 8, 9}, "")[:eventArgsOffset+8*n]
		if err := decodeEvent(b, &raw, none, 0, &ev); err != nil {
			t.Fatalf("%d bytes: %v", len(b), err)
		}
		var got []uint64
		for _, a := range ev.Args {
			got = append(got, a.Bits)
		}
		if !reflect.DeepEqual(got, []uint64{7, 8, 9}) || ev.Comm != "demo" {
			t.Errorf("%d bytes: args %v, comm %q; want [7 8 9], demo", len(b), got, ev.Comm)
		}
	}
}

func TestDecodeEventErrors(t *testing.T) {
	var ev Event
	var raw usdtEvent
	none := func(uint32) *Spec { return nil }
	for _, b := range [][]byte{
		nil,
		rawEvent(1, 0, 0, 0, nil, "")[:eventArgsOffset-1],
		rawEvent(1, 0, 0, 0, nil, "")[:eventArgsOffset+7],
		rawEvent(12, 0, 0, 0, nil, "")[:100],
		rawEvent(1, 0, 1, 0, nil, "unterminated"),
	} {
		if err := decodeEvent(b, &raw, none, 0, &ev); !errors.Is(err, errShortEvent) {
			t.Errorf("decodeEvent(%d bytes) = %v, want %v", len(b), err, errShortEvent)
		}
	}
}

func TestValueFloat32(t *testing.T) {
	v := Value{Kind: Float, Bits: uint64(math.Float32bits(-1.5)), Size: 4}
	if got := v.Float(); got != -1.5 {
		t.Errorf("Float() = %v, want -1.5", got)
	}
}

func TestValueAs(t *testing.T) {
	for _, tt := range []struct {
		bits   uint64
		size   int
		signed bool
		want   uint64
	}{
		{0xff, 1, true, 0xffffffffffffffff},
		{0xff, 1, false, 0xff},
		{0x1234_8000, 2, true, 0xffffffffffff8000},
		{0x1234_8000, 4, false, 0x1234_8000},
		{0xdead_beef_0000_0001, 8, true, 0xdead_beef_0000_0001},
	} {
		if got := (Value{Bits: tt.bits}).As(tt.size, tt.signed); got != tt.want {
			t.Errorf("Value{Bits: %#x}.As(%d, %v) = %#x, want %#x", tt.bits, tt.size, tt.signed, got, tt.want)
		}
	}
}

func TestValueString(t *testing.T) {
	for _, tt := range []struct {
		v    Value
		want string
	}{
		{Value{Kind: Int, Bits: uint64(1<<64 - 5), Size: 4}, "-5"},
		{Value{Kind: Uint, Bits: 1<<64 - 1, Size: 8}, "18446744073709551615"},
		{Value{Kind: Float, Bits: uint64(math.Float32bits(1.5)), Size: 4}, "1.5"},
		{Value{Kind: Float, Bits: math.Float64bits(0.1), Size: 8}, "0.1"},
		{Value{Kind: String, Bits: 0x1000, Str: "a\"b\n", Size: 8}, `"a\"b\n" at 0x1000`},
		{Value{Kind: String, Bits: 0x10, Str: "abc", Size: 8, Truncated: true}, `"abc"... at 0x10`},
		{Value{Kind: NotRead, Size: 8}, "<not read>"},
	} {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.v, got, tt.want)
		}
	}
}
