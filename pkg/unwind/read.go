package unwind

import (
	"encoding/binary"
	"errors"
	"fmt"
)

var errShort = errors.New("truncated")

// A reader decodes the fields of call-frame information. The first error
// sticks: later reads return zeros, so that a caller checks once.
type reader struct {
	b     []byte
	off   int
	order binary.ByteOrder
	err   error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.off+n > len(r.b) || r.off+n < r.off {
		r.err = fmt.Errorf("%w at offset %#x", errShort, r.off)
		return false
	}
	return true
}

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	r.off += 2
	return r.order.Uint16(r.b[r.off-2:])
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	r.off += 4
	return r.order.Uint32(r.b[r.off-4:])
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	r.off += 8
	return r.order.Uint64(r.b[r.off-8:])
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) || !r.need(int(n)) {
		r.need(len(r.b) + 1)
		return nil
	}
	r.off += int(n)
	return r.b[r.off-int(n) : r.off]
}

func (r *reader) uleb() uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		b := r.u8()
		if r.err != nil {
			return 0
		}
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		if b&0x80 == 0 {
			return v
		}
	}
}

func (r *reader) sleb() int64 {
	var v int64
	shift := uint(0)
	for {
		b := r.u8()
		if r.err != nil {
			return 0
		}
		if shift < 64 {
			v |= int64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

// Pointer encodings of .eh_frame and .eh_frame_hdr (DW_EH_PE_*, LSB
// "Exception Frame").
const (
	peAbsptr  = 0x00
	peULEB128 = 0x01
	peUdata2  = 0x02
	peUdata4  = 0x03
	peUdata8  = 0x04
	peSLEB128 = 0x09
	peSdata2  = 0x0a
	peSdata4  = 0x0b
	peSdata8  = 0x0c

	pePCRel   = 0x10
	peDataRel = 0x30

	peIndirect = 0x80
	peOmit     = 0xff
)

// ptr reads a pointer of encoding enc. addr is the address the section
// is linked at, which pc-relative values are relative to; datarel is
// the base of data-relative ones (the address of .eh_frame_hdr).
// The value of an indirect pointer is the address it is stored at,
// which is never followed here.
func (r *reader) ptr(enc byte, addr, datarel uint64) uint64 {
	if enc == peOmit {
		return 0
	}
	pos := addr + uint64(r.off)
	var v uint64
	switch enc & 0x0f {
	case peAbsptr, peUdata8, peSdata8:
		v = r.u64()
	case peULEB128:
		v = r.uleb()
	case peUdata2:
		v = uint64(r.u16())
	case peSdata2:
		v = uint64(int64(int16(r.u16())))
	case peUdata4:
		v = uint64(r.u32())
	case peSdata4:
		v = uint64(int64(int32(r.u32())))
	case peSLEB128:
		v = uint64(r.sleb())
	default:
		r.fail(fmt.Errorf("pointer encoding %#x not supported", enc))
		return 0
	}
	switch enc & 0x70 {
	case 0:
	case pePCRel:
		v += pos
	case peDataRel:
		v += datarel
	default:
		r.fail(fmt.Errorf("pointer encoding %#x not supported", enc))
	}
	return v
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}
