package repair

import (
	"errors"
	"fmt"
	"io"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// hookCandidate returns the loader's hook of process pid as a candidate
// when it holds a breakpoint, as sdtattach's stopper leaves one there
// when it dies while the kernel registers its uprobe; nil otherwise, and
// for a process whose loader has no hook.
func hookCandidate(pid int, mem *process.Mem) (*candidate, error) {
	h, err := process.LoaderHook(pid)
	if errors.Is(err, process.ErrNoHook) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("loader hook: %w", err)
	}
	o := h.Object
	site := Site{PID: pid, File: o.Path, Name: process.DebugState, Hook: true, Addr: h.Addr, Offset: h.Offset}
	file := &bytesAt{off: int64(h.Offset), b: h.Insn}
	c, err := candidateAt(mem, file, h.Machine, site, process.FileID{Dev: o.Dev, Inode: o.Inode})
	if err != nil {
		return nil, fmt.Errorf("loader hook: %s: %w", o.Path, err)
	}
	return c, nil
}

// bytesAt reads b, the bytes of a file at offset off, as the file.
type bytesAt struct {
	off int64
	b   []byte
}

func (r *bytesAt) ReadAt(p []byte, off int64) (int, error) {
	if off < r.off || off-r.off > int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off-r.off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
