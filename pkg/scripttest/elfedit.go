package scripttest

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"

	"rsc.io/script"
)

// StripSectionHeaders removes the section headers of an ELF file, as
// strip --strip-section-headers and sstrip do: what is left is what the
// loader reads, the program headers and the segments.
func StripSectionHeaders() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "remove the section headers of an ELF file in place",
			Args:    "FILE",
			Detail: []string{
				"Sets e_shoff, e_shnum and e_shstrndx to 0; the bytes of the sections stay where they are.",
			},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			if len(args) != 1 {
				return nil, script.ErrUsage
			}
			name := s.Path(args[0])
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			if err := stripSectionHeaders(b); err != nil {
				return nil, fmt.Errorf("%s: %w", args[0], err)
			}
			return nil, os.WriteFile(name, b, 0o755)
		})
}

func stripSectionHeaders(b []byte) error {
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return err
	}
	var order binary.ByteOrder = binary.LittleEndian
	if ef.Data == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	shoff, shnum := 0x20, 0x30 // ELFCLASS32: e_shoff, then e_shnum and e_shstrndx
	if ef.Class == elf.ELFCLASS64 {
		shoff, shnum = 0x28, 0x3c
		order.PutUint64(b[shoff:], 0)
	} else {
		order.PutUint32(b[shoff:], 0)
	}
	order.PutUint16(b[shnum:], 0)
	order.PutUint16(b[shnum+2:], 0)
	return nil
}
