package symbolize

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
)

// ErrDebugMismatch is wrapped by the warning about a debug file that was
// found but belongs to another build: its build-id or its CRC32 is not the
// one the file names.
var ErrDebugMismatch = errors.New("debug file does not match")

// findDebugFile looks for the separate debug file of e, as gdb does: by
// build-id under each debug directory, then by .gnu_debuglink next to the
// file, in its .debug directory and under each debug directory, and reads
// the symbols of the first that matches. A process's own root is searched
// after the debug directories of this machine.
func findDebugFile(e *elfFile, dirs []string) (path string, syms []Symbol, warnings []error) {
	if e.root != "" {
		dirs = slices.Clip(dirs) // appended to below, never into the caller's array
		for _, d := range dirs {
			dirs = append(dirs, filepath.Join(e.root, d))
		}
	}
	if id := e.buildID; len(id) > 2 {
		for _, d := range dirs {
			p := filepath.Join(d, ".build-id", id[:2], id[2:]+".debug")
			syms, err := readDebugFile(p, func(f *elfFile) error {
				if f.buildID != id {
					return fmt.Errorf("%s: build-id %s, want %s: %w", p, f.buildID, id, ErrDebugMismatch)
				}
				return nil
			})
			if err == nil {
				return p, syms, warnings
			}
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, err)
			}
		}
	}
	name, crc, ok := debuglink(e.ef)
	if !ok {
		return "", nil, warnings
	}
	dir := filepath.Dir(e.path)
	candidates := []string{
		filepath.Join(e.root, dir, name),
		filepath.Join(e.root, dir, ".debug", name),
	}
	for _, d := range dirs {
		candidates = append(candidates, filepath.Join(d, dir, name))
	}
	for _, p := range candidates {
		if p == e.host {
			continue
		}
		syms, err := readDebugFile(p, func(f *elfFile) error {
			if _, err := f.f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			h := crc32.NewIEEE()
			if _, err := io.Copy(h, f.f); err != nil {
				return fmt.Errorf("%s: crc32: %w", p, err)
			}
			if got := h.Sum32(); got != crc {
				return fmt.Errorf("%s: crc32 %#08x, want %#08x: %w", p, got, crc, ErrDebugMismatch)
			}
			return nil
		})
		if err == nil {
			return p, syms, warnings
		}
		if !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, err)
		}
	}
	return "", nil, warnings
}

// readDebugFile opens the debug file at p, checks it with match, and
// reads its .symtab.
func readDebugFile(p string, match func(*elfFile) error) ([]Symbol, error) {
	f, err := openELF(ref{host: p, path: p})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := match(f); err != nil {
		return nil, err
	}
	syms, err := f.ef.Symbols()
	if err != nil {
		return nil, fmt.Errorf("%s: read .symtab: %w", p, err)
	}
	return elfSymbols(syms, DebugFile), nil
}
