package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"io"
)

// ntGNUBuildID is the type of the GNU build-id note.
const ntGNUBuildID = 3

// BuildID returns the GNU build-id of ef in hex, "" when it has none.
func BuildID(ef *elf.File) string { return buildID(ef) }

// buildID returns the hex build-id of a file, from its note sections or,
// in a file whose section headers are gone, its PT_NOTE segments.
func buildID(ef *elf.File) string {
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		if id := noteBuildID(ef.ByteOrder, s.Open()); id != "" {
			return id
		}
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_NOTE {
			if id := noteBuildID(ef.ByteOrder, p.Open()); id != "" {
				return id
			}
		}
	}
	return ""
}

// noteBuildID reads notes (namesz, descsz, type, name and desc each padded
// to 4 bytes) and returns the GNU build-id among them.
func noteBuildID(bo interface{ Uint32([]byte) uint32 }, r io.Reader) string {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return ""
	}
	for len(data) >= 12 {
		namesz, descsz, typ := bo.Uint32(data), bo.Uint32(data[4:]), bo.Uint32(data[8:])
		data = data[12:]
		nameEnd := align4(uint64(namesz))
		descEnd := nameEnd + align4(uint64(descsz))
		if descEnd > uint64(len(data)) {
			return ""
		}
		name := bytes.TrimRight(data[:namesz], "\x00")
		if typ == ntGNUBuildID && string(name) == "GNU" && descsz > 0 {
			return hex.EncodeToString(data[nameEnd : nameEnd+uint64(descsz)])
		}
		data = data[descEnd:]
	}
	return ""
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

// debuglink returns the file name and CRC32 that .gnu_debuglink names: the
// name ends with a NUL, padding to 4 bytes follows, then the CRC in the
// file's byte order.
func debuglink(ef *elf.File) (name string, crc uint32, ok bool) {
	s := ef.Section(".gnu_debuglink")
	if s == nil {
		return "", 0, false
	}
	data, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	end := bytes.IndexByte(data, 0)
	if end <= 0 {
		return "", 0, false
	}
	at := align4(uint64(end + 1))
	if at+4 > uint64(len(data)) {
		return "", 0, false
	}
	return string(data[:end]), ef.ByteOrder.Uint32(data[at:]), true
}
