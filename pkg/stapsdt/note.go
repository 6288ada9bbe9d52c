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

// notesLayout says how the notes of a section or segment are laid out.
// foreign is set in a PT_NOTE segment, whose notes of other owners and
// types are not stapsdt notes gone wrong but a build ID or an ABI tag.
type notesLayout struct {
	order    binary.ByteOrder
	addrSize int
	align    uint64 // of each note's name and descriptor: 4, or 8 in some PT_NOTE segments
	foreign  bool
}

// parseNotes decodes the stapsdt notes of one .note.stapsdt section or
// PT_NOTE segment and calls add for each, in order. It reads the data
// byte-wise, so any alignment of data is fine, and it never reads past the
// end of data. Notes of other owners or types are reported, unless
// l.foreign, and skipped. On a structural error, where the following
// notes cannot be located, it stops there. Malformed notes go to errs,
// unless it is nil.
// secOff is the file offset of data, used only in errors.
//
// The strings of the notes share the memory of data, which the caller
// must not modify afterwards: 20,000 notes then cost no allocation
// instead of 60,000, or a copy of the section.
func parseNotes(data []byte, l notesLayout, secOff uint64, errs *errorList, add func(rawNote)) {
	var text string
	if len(data) > 0 {
		text = unsafe.String(&data[0], len(data))
	}
	order := l.order
	for off := 0; off < len(data); {
		at := secOff + uint64(off)
		if len(data)-off < 12 {
			errs.note(at, func() string { return fmt.Sprintf("truncated note header: %d bytes left, need 12", len(data)-off) })
			break
		}
		namesz := uint64(order.Uint32(data[off:]))
		descsz := uint64(order.Uint32(data[off+4:]))
		typ := order.Uint32(data[off+8:])
		// The descriptor and the next note start at multiples of the
		// alignment from the start of the note: with 8, a 4-byte name
		// needs no padding.
		nameOff := uint64(off) + 12
		descOff := uint64(off) + alignUp(12+namesz, l.align)
		end := descOff + alignUp(descsz, l.align)
		left := uint64(len(data))
		if descOff > left || nameOff+namesz > left {
			errs.note(at, func() string {
				return fmt.Sprintf("namesz %d runs past the end of the section (%d bytes left)", namesz, left-nameOff)
			})
			break
		}
		if descOff+descsz > left {
			errs.note(at, func() string {
				return fmt.Sprintf("descsz %d runs past the end of the section (%d bytes left)", descsz, left-descOff)
			})
			break
		}
		if end > left {
			// The last note may lack its final padding.
			end = left
		}
		name := data[nameOff : nameOff+namesz]
		desc := data[descOff : descOff+descsz]
		next := int(end)
		owner := string(bytes.TrimRight(name, "\x00")) == noteOwner && len(name) > 0 && name[len(name)-1] == 0
		switch {
		case l.foreign && (!owner || typ != ntStapsdt):
		case !owner:
			errs.note(at, func() string { return fmt.Sprintf("owner %q, want %q", name, noteOwner+"\x00") })
		case typ != ntStapsdt:
			errs.note(at, func() string { return fmt.Sprintf("type %d, want %d (NT_STAPSDT)", typ, ntStapsdt) })
		case len(desc) < 3*l.addrSize:
			errs.note(at, func() string {
				return fmt.Sprintf("descriptor of %d bytes is too short for three %d-byte addresses", len(desc), l.addrSize)
			})
		default:
			n, msg := decodeDesc(desc, text[descOff:descOff+descsz], order, l.addrSize)
			if msg != "" {
				errs.note(at, func() string { return msg })
				break
			}
			n.off, n.descOff = off, int(descOff)
			add(n)
		}
		off = next
	}
}

// decodeDesc decodes a stapsdt descriptor: three addresses, then provider,
// name and argument string, each NUL-terminated. descText is desc as a
// string, from which the strings are cut. What is wrong with a malformed
// descriptor is returned as a constant message, which costs nothing when
// it is not reported.
func decodeDesc(desc []byte, descText string, order binary.ByteOrder, addrSize int) (rawNote, string) {
	var n rawNote
	if len(desc) < 3*addrSize {
		return n, "descriptor is too short for three addresses"
	}
	n.pc = readAddr(desc, order, addrSize)
	n.base = readAddr(desc[addrSize:], order, addrSize)
	n.sema = readAddr(desc[2*addrSize:], order, addrSize)
	rest := descText[3*addrSize:]
	var strs [3]string
	for i, unterminated := range [3]string{
		"provider is not NUL-terminated",
		"name is not NUL-terminated",
		"argument string is not NUL-terminated",
	} {
		j := strings.IndexByte(rest, 0)
		if j < 0 {
			return n, unterminated
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

// countNotes counts the notes of data that parseNotes decodes, to size
// the probes in one allocation: neither a section of junk nor one of
// damaged stapsdt notes reserves a probe per note.
func countNotes(data []byte, l notesLayout) int {
	n := 0
	parseNotes(data, l, 0, nil, func(rawNote) { n++ })
	return n
}

func readAddr(b []byte, order binary.ByteOrder, size int) uint64 {
	if size == 4 {
		return uint64(order.Uint32(b))
	}
	return order.Uint64(b)
}

// alignUp rounds n up to a multiple of a, a power of two.
func alignUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }
