package stapsdt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ar(5) archives, the static libraries (lib*.a) that toolchains ship with
// the probes of their objects in them (libstdc++.a, libpython3.11.a).
const (
	// ArchiveMagic begins an ar archive.
	ArchiveMagic = "!<arch>\n"
	// thinMagic begins a thin archive, which names its members' files
	// instead of holding them.
	thinMagic = "!<thin>\n"
	// The header of a member: name, date, uid, gid, mode, size, and a
	// terminator.
	headerSize = 60
	fmag       = "`\n"
)

var (
	// ErrArchive is the error of Open and NewFile for an ar archive: not
	// an ELF file (it matches ErrNotELF), but a collection of them,
	// which OpenArchive reads.
	ErrArchive error = archiveError{}

	// ErrThinArchive is the error of OpenArchive and NewArchive for a
	// thin archive, whose members are other files, named in it.
	ErrThinArchive = errors.New("a thin archive: its members are the files it names")
)

type archiveError struct{}

func (archiveError) Error() string { return "an ar archive (a static library), not an ELF file" }

func (archiveError) Is(target error) bool { return target == ErrNotELF }

// An ArchiveMember is an ELF object stored in an ar archive.
type ArchiveMember struct {
	// Name is the member's name, as ar t lists it: long names (GNU's
	// name table, BSD's #1/N) resolved and GNU's terminating '/' cut.
	Name string
	// Offset and Size locate its data in the archive.
	Offset, Size int64
}

// An Archive is an ar archive whose members' probes can be read.
type Archive struct {
	// Name names the archive in MemberName and in the errors of File:
	// the name given to OpenArchive.
	Name string
	// Members are the archive's members in order, less its symbol
	// tables and its table of long names.
	Members []ArchiveMember

	r      io.ReaderAt
	closer io.Closer
}

// OpenArchive reads the list of members of the named ar archive. Like
// Open, it refuses a file that is not a regular file, and its errors name
// the file. The Archive must be closed.
func OpenArchive(name string) (*Archive, error) {
	fd, size, err := open(name)
	if err != nil {
		return nil, err
	}
	a, err := NewArchive(fd, size)
	if err != nil {
		fd.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a.Name, a.closer = name, fd
	return a, nil
}

// NewArchive reads the list of members of the ar archive of size bytes
// in r. A malformed header is an error; so is a thin archive
// (ErrThinArchive).
func NewArchive(r io.ReaderAt, size int64) (*Archive, error) {
	members, err := archiveMembers(r, size)
	if err != nil {
		return nil, err
	}
	return &Archive{Members: members, r: r}, nil
}

// File reads the probes of member m as Read reads those of a file, its
// errors naming the member as MemberName does.
func (a *Archive) File(m ArchiveMember) (*File, error) {
	f, err := newFile(a.Reader(m), m.Size)
	return f, nameErrors(a.MemberName(m), err)
}

// Reader returns the data of member m, for reading more of it than its
// probes (with debug/elf). It is valid until the Archive is closed.
func (a *Archive) Reader(m ArchiveMember) *io.SectionReader {
	return io.NewSectionReader(a.r, m.Offset, m.Size)
}

// MemberName names member m as binutils does: ARCHIVE(MEMBER).
func (a *Archive) MemberName(m ArchiveMember) string {
	return a.Name + "(" + m.Name + ")"
}

// Close closes the file OpenArchive opened; it does nothing for an
// Archive of NewArchive.
func (a *Archive) Close() error {
	if a.closer == nil {
		return nil
	}
	return a.closer.Close()
}

// isArchive reports whether r begins as an ar archive, thin or not.
func isArchive(r io.ReaderAt) bool {
	var magic [len(ArchiveMagic)]byte
	n, _ := r.ReadAt(magic[:], 0)
	return n == len(magic) && (string(magic[:]) == ArchiveMagic || string(magic[:]) == thinMagic)
}

// archiveMembers lists the members of the archive of size bytes in r.
// Every header is read (60 bytes each), and of the data only the GNU
// table of long names and the BSD names.
func archiveMembers(r io.ReaderAt, size int64) ([]ArchiveMember, error) {
	var magic [len(ArchiveMagic)]byte
	if n, _ := r.ReadAt(magic[:], 0); n < len(magic) {
		return nil, errors.New("not an ar archive")
	}
	switch string(magic[:]) {
	case ArchiveMagic:
	case thinMagic:
		return nil, ErrThinArchive
	default:
		return nil, errors.New("not an ar archive")
	}
	var (
		members []ArchiveMember
		names   []byte // GNU's table of long names, the member "//"
		hdr     [headerSize]byte
	)
	for off := int64(len(ArchiveMagic)); off < size; {
		if size-off < headerSize {
			return nil, fmt.Errorf("member header at offset %#x: truncated", off)
		}
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return nil, fmt.Errorf("member header at offset %#x: %w", off, err)
		}
		if string(hdr[58:60]) != fmag {
			return nil, fmt.Errorf("member header at offset %#x: no terminator", off)
		}
		n, err := strconv.ParseInt(strings.TrimRight(string(hdr[48:58]), " "), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("member header at offset %#x: size %q", off, hdr[48:58])
		}
		data := off + headerSize
		if n > size-data {
			return nil, fmt.Errorf("member at offset %#x: %d bytes past the end of the archive", off, n-(size-data))
		}
		m := ArchiveMember{Offset: data, Size: n}
		// Members start at even offsets.
		off = data + n + n&1
		name := strings.TrimRight(string(hdr[:16]), " ")
		switch {
		case name == "/" || name == "/SYM64/" || name == "__.SYMDEF" || name == "__.SYMDEF SORTED":
			continue // symbol tables
		case name == "//":
			if names != nil {
				return nil, fmt.Errorf("member at offset %#x: a second table of long names", m.Offset-headerSize)
			}
			if n > MaxReadSize {
				return nil, fmt.Errorf("table of long names of %d bytes: more than the %d (%d MiB) read from a file", n, MaxReadSize, MaxReadSize>>20)
			}
			names = make([]byte, n)
			if _, err := r.ReadAt(names, data); err != nil {
				return nil, fmt.Errorf("table of long names: %w", err)
			}
			continue
		case strings.HasPrefix(name, "#1/"):
			// BSD: the name is the first bytes of the data.
			l, err := strconv.ParseInt(name[3:], 10, 64)
			if err != nil || l < 0 || l > m.Size {
				return nil, fmt.Errorf("member at offset %#x: BSD name length %q", m.Offset-headerSize, name[3:])
			}
			b := make([]byte, l)
			if _, err := r.ReadAt(b, data); err != nil {
				return nil, fmt.Errorf("member at offset %#x: name: %w", m.Offset-headerSize, err)
			}
			// Padded with NULs to an aligned length.
			m.Name = string(bytes.TrimRight(b, "\x00"))
			m.Offset += l
			m.Size -= l
		case len(name) > 1 && name[0] == '/':
			i, err := strconv.Atoi(name[1:])
			if err != nil || i < 0 || i >= len(names) {
				return nil, fmt.Errorf("member at offset %#x: long name %q not in the table of long names", m.Offset-headerSize, name)
			}
			long := names[i:]
			if end := bytes.IndexByte(long, '\n'); end >= 0 {
				long = long[:end]
			}
			m.Name = strings.TrimSuffix(string(long), "/")
		default:
			m.Name = strings.TrimSuffix(name, "/")
		}
		members = append(members, m)
	}
	return members, nil
}
