package unwind

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrNoFDE is returned for an address that no FDE covers.
var ErrNoFDE = errors.New("no FDE covers the address")

// A cie is a Common Information Entry: what the FDEs that name it share.
type cie struct {
	codeAlign uint64
	dataAlign int64
	raReg     uint64 // the return address column
	fdeEnc    byte   // encoding of the addresses of its FDEs
	aug       bool   // 'z': FDEs carry augmentation data
	signal    bool   // 'S': a signal handler's frame
	initial   []byte // the instructions every FDE starts from
	eh        bool   // of .eh_frame
	order     binary.ByteOrder
}

// An fde is a Frame Description Entry: the rules of one range of code.
type fde struct {
	cie        *cie
	start, end uint64 // link-time addresses, end excluded
	insns      []byte
}

// A section is .eh_frame or .debug_frame, as linked at addr.
type section struct {
	data  []byte
	addr  uint64
	eh    bool // .eh_frame: relative CIE pointers, CIE id 0, pointer encodings
	order binary.ByteOrder
}

// entry reads the header of the entry at off: its body, the offset that
// follows it, and the CIE it names (-1 when it is a CIE, and -2 for the
// terminator of .eh_frame).
func (s *section) entry(off int) (body reader, next int, cieOff int, err error) {
	r := reader{b: s.data, off: off, order: s.order}
	length := uint64(r.u32())
	wide := length == 0xffffffff
	if wide {
		length = r.u64()
	}
	if r.err != nil {
		return body, 0, 0, r.err
	}
	if length == 0 {
		return body, r.off, -2, nil
	}
	if length > uint64(len(s.data)-r.off) {
		return body, 0, 0, fmt.Errorf("entry at %#x: length %d past the end of the section", off, length)
	}
	end := r.off + int(length)
	idPos := r.off
	var id uint64
	if wide {
		id = r.u64()
	} else {
		id = uint64(r.u32())
	}
	body = reader{b: s.data[:end], off: r.off, order: s.order}
	switch {
	case s.eh && id == 0, !s.eh && !wide && id == 0xffffffff, !s.eh && wide && id == ^uint64(0):
		return body, end, -1, nil
	case s.eh:
		// Relative to the field itself.
		if id > uint64(idPos) {
			return body, 0, 0, fmt.Errorf("FDE at %#x: CIE pointer %#x before the section", off, id)
		}
		return body, end, idPos - int(id), nil
	default:
		if id >= uint64(len(s.data)) {
			return body, 0, 0, fmt.Errorf("FDE at %#x: CIE offset %#x past the section", off, id)
		}
		return body, end, int(id), nil
	}
}

// parseCIE parses the CIE at off.
func (s *section) parseCIE(off int) (*cie, error) {
	r, _, id, err := s.entry(off)
	if err != nil {
		return nil, err
	}
	if id != -1 {
		return nil, fmt.Errorf("entry at %#x is not a CIE", off)
	}
	c := &cie{fdeEnc: peAbsptr, eh: s.eh, order: s.order}
	version := r.u8()
	if version != 1 && version != 3 && version != 4 {
		return nil, fmt.Errorf("CIE at %#x: version %d not supported", off, version)
	}
	augStart := r.off
	for r.err == nil && r.u8() != 0 {
	}
	aug := string(s.data[augStart:max(augStart, r.off-1)])
	if version == 4 {
		if addrSize := r.u8(); addrSize != 8 && r.err == nil {
			return nil, fmt.Errorf("CIE at %#x: address size %d not supported", off, addrSize)
		}
		r.u8() // segment selector size
	}
	c.codeAlign = r.uleb()
	c.dataAlign = r.sleb()
	if version == 1 {
		c.raReg = uint64(r.u8())
	} else {
		c.raReg = r.uleb()
	}
	if aug != "" && aug[0] == 'z' {
		c.aug = true
		n := r.uleb()
		data := reader{b: r.bytes(n), order: s.order}
		dataAddr := s.addr + uint64(r.off) - n
		for _, a := range aug[1:] {
			switch a {
			case 'R':
				c.fdeEnc = data.u8()
			case 'L':
				data.u8() // the LSDA's encoding, in FDEs' augmentation data
			case 'P':
				enc := data.u8()
				data.ptr(enc&^peIndirect, dataAddr, 0) // the personality routine
			case 'S':
				c.signal = true
			case 'B', 'G':
				// arm64 BTI, memory tagging: nothing for unwinding.
			default:
				// The rest is described by the length.
			}
			if data.err != nil {
				return nil, fmt.Errorf("CIE at %#x: augmentation %q: %w", off, aug, data.err)
			}
		}
	} else if aug != "" && aug != "eh" {
		return nil, fmt.Errorf("CIE at %#x: augmentation %q not supported", off, aug)
	}
	if r.err != nil {
		return nil, fmt.Errorf("CIE at %#x: %w", off, r.err)
	}
	c.initial = r.b[r.off:]
	return c, nil
}

// parseFDE parses the FDE whose body is r, with its CIE c.
func (s *section) parseFDE(off int, r reader, c *cie) (*fde, error) {
	f := &fde{cie: c}
	if s.eh {
		f.start = r.ptr(c.fdeEnc, s.addr, 0)
		f.end = f.start + r.ptr(c.fdeEnc&0x0f, s.addr, 0)
	} else {
		f.start = r.u64()
		f.end = f.start + r.u64()
	}
	if c.aug {
		r.bytes(r.uleb())
	}
	if r.err != nil {
		return nil, fmt.Errorf("FDE at %#x: %w", off, r.err)
	}
	f.insns = r.b[r.off:]
	return f, nil
}
