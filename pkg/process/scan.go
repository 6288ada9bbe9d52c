package process

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
)

// readFile reads the file at path into buf.
func readFile(buf *bytes.Buffer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = buf.ReadFrom(f)
	return err
}

// A FileID identifies a file as /proc/PID/maps does: by device and inode.
type FileID struct{ Dev, Inode uint64 }

// A ScanError reports the processes Mappers could not inspect.
type ScanError struct {
	Denied int   // processes whose maps could not be read
	First  error // the first of their errors, a *PermissionError
}

func (e *ScanError) Error() string {
	if e.Denied == 1 {
		return fmt.Sprintf("1 process could not be inspected: %v", e.First)
	}
	return fmt.Sprintf("%d processes could not be inspected, such as: %v", e.Denied, e.First)
}

func (e *ScanError) Unwrap() error { return e.First }

// Mappers returns the processes that map one of files, in increasing
// order. Processes that exit during the scan are left out. Processes whose
// maps may not be read are left out too, and reported in a *ScanError
// returned with the processes found.
func Mappers(files ...FileID) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("scan processes: %w", err)
	}
	var (
		pids []int
		scan ScanError
		buf  bytes.Buffer
	)
	// The inodes as a map prints them: a process whose maps hold none
	// of them is passed over without parsing its maps.
	inodes := make([][]byte, len(files))
	for i, f := range files {
		inodes[i] = fmt.Appendf(nil, " %d ", f.Inode)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		buf.Reset()
		if err := readFile(&buf, procPath(pid, "maps")); err != nil {
			err = procError(pid, "read maps", accessRead, err)
			if pe := (*PermissionError)(nil); errors.As(err, &pe) {
				scan.Denied++
				if scan.First == nil {
					scan.First = err
				}
			}
			continue // else exited, or a kernel thread being reaped
		}
		if !slices.ContainsFunc(inodes, func(ino []byte) bool { return bytes.Contains(buf.Bytes(), ino) }) {
			continue
		}
		maps, err := ParseMaps(&buf)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(maps, func(m Mapping) bool { return slices.Contains(files, FileID{m.Dev, m.Inode}) }) {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	if scan.Denied > 0 {
		return pids, &scan
	}
	return pids, nil
}
