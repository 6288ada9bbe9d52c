package process

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A Mapping is one line of /proc/PID/maps.
type Mapping struct {
	Start, End uint64
	Perms      string // "r-xp"
	Offset     uint64 // file offset of Start
	Dev        uint64 // unix.Mkdev(major, minor)
	Inode      uint64
	// Path is as the kernel prints it: "/usr/lib/libc.so.6",
	// "/memfd:foo (deleted)", "[heap]", or empty for an anonymous mapping.
	Path string
}

// Readable reports whether the mapping may be read.
func (m Mapping) Readable() bool { return m.perm(0, 'r') }

// Writable reports whether the mapping may be written.
func (m Mapping) Writable() bool { return m.perm(1, 'w') }

// Executable reports whether the mapping may be executed.
func (m Mapping) Executable() bool { return m.perm(2, 'x') }

// Private reports whether the mapping is copy-on-write rather than shared.
func (m Mapping) Private() bool { return m.perm(3, 'p') }

// Deleted reports whether the file was unlinked after it was mapped, or
// never had a name (memfd), so that its path no longer leads to it.
func (m Mapping) Deleted() bool { return strings.HasSuffix(m.Path, " (deleted)") }

func (m Mapping) perm(i int, c byte) bool { return len(m.Perms) > i && m.Perms[i] == c }

// fileBacked reports whether the mapping maps a file with a path, as
// opposed to anonymous memory, [heap], [stack], [vdso] and anonymous
// inodes such as "anon_inode:[perf_event]".
func (m Mapping) fileBacked() bool { return m.Inode != 0 && strings.HasPrefix(m.Path, "/") }

// ReadMaps parses /proc/PID/maps. A process that does not exist gives an
// error wrapping ErrNoProcess, one that may not be inspected a
// *PermissionError.
func ReadMaps(pid int) ([]Mapping, error) {
	f, err := os.Open(procPath(pid, "maps"))
	if err != nil {
		return nil, procError(pid, "read maps", accessRead, err)
	}
	defer f.Close()
	maps, err := ParseMaps(f)
	if err != nil {
		return nil, procError(pid, "read maps", accessRead, err)
	}
	return maps, nil
}

// ParseMaps parses the format of /proc/PID/maps:
//
//	start-end perms offset major:minor inode [path]
//
// with hexadecimal numbers except the decimal inode. The path is the rest
// of the line after the padding that aligns it, so it may contain spaces,
// but leading spaces of a path are lost with the padding.
func ParseMaps(r io.Reader) ([]Mapping, error) {
	var maps []Mapping
	sc := bufio.NewScanner(r)
	// A path can be PATH_MAX long, and longer once the kernel escapes it.
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		m, err := parseMapsLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("maps line %d: %w", n, err)
		}
		maps = append(maps, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read maps: %w", err)
	}
	return maps, nil
}

func parseMapsLine(line string) (Mapping, error) {
	var m Mapping
	rest := line
	field := func() string {
		f, r, _ := strings.Cut(rest, " ")
		rest = r
		return f
	}
	var err error
	addrs := field()
	start, end, ok := strings.Cut(addrs, "-")
	if !ok {
		return m, fmt.Errorf("address range %q: missing '-'", addrs)
	}
	if m.Start, err = strconv.ParseUint(start, 16, 64); err != nil {
		return m, fmt.Errorf("start address: %w", err)
	}
	if m.End, err = strconv.ParseUint(end, 16, 64); err != nil {
		return m, fmt.Errorf("end address: %w", err)
	}
	if m.End < m.Start {
		return m, fmt.Errorf("address range %q: end before start", addrs)
	}
	if m.Perms = field(); len(m.Perms) != 4 {
		return m, fmt.Errorf("permissions %q: want 4 characters", m.Perms)
	}
	if m.Offset, err = strconv.ParseUint(field(), 16, 64); err != nil {
		return m, fmt.Errorf("offset: %w", err)
	}
	dev := field()
	major, minor, ok := strings.Cut(dev, ":")
	if !ok {
		return m, fmt.Errorf("device %q: missing ':'", dev)
	}
	maj, err := strconv.ParseUint(major, 16, 32)
	if err != nil {
		return m, fmt.Errorf("device major: %w", err)
	}
	mnr, err := strconv.ParseUint(minor, 16, 32)
	if err != nil {
		return m, fmt.Errorf("device minor: %w", err)
	}
	m.Dev = unix.Mkdev(uint32(maj), uint32(mnr))
	if m.Inode, err = strconv.ParseUint(field(), 10, 64); err != nil {
		return m, fmt.Errorf("inode: %w", err)
	}
	m.Path = strings.TrimLeft(rest, " ")
	return m, nil
}
