package repair

import (
	"errors"
	"fmt"

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
	st := h.Read(mem)
	if st.ArmedErr != nil {
		return nil, fmt.Errorf("loader hook: %s: %w", h.Object.Path, st.ArmedErr)
	}
	if st.Breakpoint == nil {
		return nil, nil
	}
	o := h.Object
	site := Site{PID: pid, File: o.Path, Name: process.DebugState, Hook: true, Addr: h.Addr, Offset: h.Offset}
	return &candidate{site: site, id: process.FileID{Dev: o.Dev, Inode: o.Inode}, orig: st.Insn, live: st.Breakpoint}, nil
}
