package semaphore

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// Processes returns the processes that map the file a specification's PATH
// names (resolved as probespec.Resolve does), by device and inode, in
// increasing order. Processes that exit during the scan are left out.
// Processes whose maps may not be read are left out too, and counted in an
// error that wraps the first *process.PermissionError; the processes found
// are returned with it.
func Processes(name string) ([]int, error) {
	path, err := probespec.Resolve(name)
	if err != nil {
		return nil, err
	}
	ids := appendID(nil, path)
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: %w", path, os.ErrNotExist)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("scan processes: %w", err)
	}
	var (
		pids   []int
		denied int
		first  error
	)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		maps, err := process.ReadMaps(pid)
		var pe *process.PermissionError
		switch {
		case errors.As(err, &pe):
			denied++
			if first == nil {
				first = err
			}
			continue
		case err != nil:
			continue // exited, or a kernel thread being reaped
		}
		if mapsFile(maps, ids[0]) {
			pids = append(pids, pid)
		}
	}
	if denied > 0 {
		if denied == 1 {
			return pids, fmt.Errorf("1 process could not be inspected: %w", first)
		}
		return pids, fmt.Errorf("%d processes could not be inspected, such as: %w", denied, first)
	}
	return pids, nil
}

func mapsFile(maps []process.Mapping, id fileID) bool {
	for _, m := range maps {
		if m.Dev == id.dev && m.Inode == id.inode {
			return true
		}
	}
	return false
}
