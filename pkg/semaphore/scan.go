package semaphore

import (
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// Processes returns the processes that map the file a specification's PATH
// names (resolved as probespec.Resolve does), by device and inode, in
// increasing order. Processes that exit during the scan are left out.
// Processes whose maps may not be read are left out too, and reported in a
// *process.ScanError, which wraps the first *process.PermissionError; the
// processes found are returned with it.
func Processes(name string) ([]int, error) {
	path, err := probespec.Resolve(name)
	if err != nil {
		return nil, err
	}
	id, err := process.StatID(path)
	if err != nil {
		return nil, err
	}
	return process.Mappers(id)
}
