package symbolize

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"

	"github.com/ulikunitz/xz"
)

// maxMiniDebugInfo bounds the decompressed size of .gnu_debugdata: it
// holds a symbol table only, some hundreds of KiB for the largest
// libraries, and a corrupt stream must not take the memory of the machine.
const maxMiniDebugInfo = 64 << 20

// miniDebugSymbols reads the symbols of MiniDebugInfo: an ELF file holding
// the .symtab entries of the functions that .dynsym lacks, compressed with
// xz into the section .gnu_debugdata of a stripped file, as Fedora and
// its derivatives ship their binaries.
func miniDebugSymbols(ef *elf.File) ([]Symbol, error) {
	s := ef.Section(".gnu_debugdata")
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	zr, err := xz.NewReader(s.Open())
	if err != nil {
		return nil, fmt.Errorf("read .gnu_debugdata: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxMiniDebugInfo+1))
	if err != nil {
		return nil, fmt.Errorf("read .gnu_debugdata: %w", err)
	}
	if len(data) > maxMiniDebugInfo {
		return nil, fmt.Errorf("read .gnu_debugdata: more than %d bytes decompressed", maxMiniDebugInfo)
	}
	mf, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read .gnu_debugdata: %w", err)
	}
	syms, err := mf.Symbols()
	if err != nil {
		return nil, fmt.Errorf("read .gnu_debugdata: .symtab: %w", err)
	}
	return elfSymbols(syms, MiniDebugInfo), nil
}
