package stapsdt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"
)

// Note header values of a stapsdt note.
const (
	noteOwner = "stapsdt"
	ntStapsdt = 3
)

// rawNote is one decoded note before address adjustment. off is its offset
// within the section, descOff the offset of its descriptor.
type rawNote struct {
	off, descOff   int
	pc, base, sema uint64
	provider, name string
	args           string
}

// parseNotes decodes the stapsdt notes of one .note.stapsdt section and
// calls add for each, in order. It reads the data byte-wise, so any
// alignment of data is fine, and it never reads past the end of data.
// Notes of other owners or types are reported and skipped. On a
// structural error, where the following notes cannot be located, it stops
// there; the errors are returned after all the notes it could decode.
// secOff is the section's file offset, used only in errors.
//
// The strings of the notes share the memory of data, which the caller
// must not modify afterwards: 20,000 notes then cost no allocation
// instead of 60,000, or a copy of the section.
func parseNotes(data []byte, order binary.ByteOrder, addrSize int, secOff uint64, add func(rawNote)) []error {
	var (
		errs []error
		text string
	)
	if len(data) > 0 {
		text = unsafe.String(&data[0], len(data))
	}
	bad := func(off int, format string, args ...any) {
		errs = append(errs, &FormatError{Off: secOff + uint64(off), Msg: fmt.Sprintf(format, args...)})
	}
	for off := 0; off < len(data); {
		if len(data)-off < 12 {
			bad(off, "truncated note header: %d bytes left, need 12", len(data)-off)
			break
		}
		namesz := uint64(order.Uint32(data[off:]))
		descsz := uint64(order.Uint32(data[off+4:]))
		typ := order.Uint32(data[off+8:])
		nameOff := uint64(off) + 12
		descOff := nameOff + align4(namesz)
		end := descOff + align4(descsz)
		left := uint64(len(data))
		if descOff > left || nameOff+namesz > left {
			bad(off, "namesz %d runs past the end of the section (%d bytes left)", namesz, left-nameOff)
			break
		}
		if descOff+descsz > left {
			bad(off, "descsz %d runs past the end of the section (%d bytes left)", descsz, left-descOff)
			break
		}
		if end > left {
			// The last note may lack its final padding.
			end = left
		}
		name := data[nameOff : nameOff+namesz]
		desc := data[descOff : descOff+descsz]
		next := int(end)
		switch {
		case string(bytes.TrimRight(name, "\x00")) != noteOwner || len(name) == 0 || name[len(name)-1] != 0:
			bad(off, "owner %q, want %q", name, noteOwner+"\x00")
		case typ != ntStapsdt:
			bad(off, "type %d, want %d (NT_STAPSDT)", typ, ntStapsdt)
		default:
			n, err := decodeDesc(desc, text[descOff:descOff+descsz], order, addrSize)
			if err != "" {
				bad(off, "%s", err)
				break
			}
			n.off, n.descOff = off, int(descOff)
			add(n)
		}
		off = next
	}
	return errs
}

// decodeDesc decodes a stapsdt descriptor: three addresses, then provider,
// name and argument string, each NUL-terminated.
// descText is desc as a string, from which the strings are cut.
func decodeDesc(desc []byte, descText string, order binary.ByteOrder, addrSize int) (rawNote, string) {
	var n rawNote
	if len(desc) < 3*addrSize {
		return n, fmt.Sprintf("descriptor of %d bytes is too short for three %d-byte addresses", len(desc), addrSize)
	}
	n.pc = readAddr(desc, order, addrSize)
	n.base = readAddr(desc[addrSize:], order, addrSize)
	n.sema = readAddr(desc[2*addrSize:], order, addrSize)
	rest := descText[3*addrSize:]
	var strs [3]string
	for i, what := range [3]string{"provider", "name", "argument string"} {
		j := strings.IndexByte(rest, 0)
		if j < 0 {
			return n, fmt.Sprintf("%s is not NUL-terminated", what)
		}
		strs[i] = rest[:j]
		rest = rest[j+1:]
	}
	if strs[0] == "" || strs[1] == "" {
		return n, "empty provider or probe name"
	}
	n.provider, n.name, n.args = strs[0], strs[1], strs[2]
	return n, ""
}

// countNotes counts the notes of data, to size the probes in one
// allocation; it stops where the data stops making sense.
func countNotes(data []byte, order binary.ByteOrder) int {
	n := 0
	for off := uint64(0); off+12 <= uint64(len(data)); n++ {
		namesz := uint64(order.Uint32(data[off:]))
		descsz := uint64(order.Uint32(data[off+4:]))
		off += 12 + align4(namesz) + align4(descsz)
	}
	return n
}

func readAddr(b []byte, order binary.ByteOrder, size int) uint64 {
	if size == 4 {
		return uint64(order.Uint32(b))
	}
	return order.Uint64(b)
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }
