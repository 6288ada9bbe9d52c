package scripttest

import (
	"errors"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// loaderHookArmed reports whether the dynamic loader's DebugState in
// process pid holds a tracer's breakpoint. A program with no such hook
// has none to hold: false.
func loaderHookArmed(pid int) (bool, error) {
	h, err := process.LoaderHook(pid)
	if errors.Is(err, process.ErrNoHook) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	mem, err := process.OpenMem(pid, false)
	if err != nil {
		return false, err
	}
	defer mem.Close()
	return h.Armed(mem)
}
