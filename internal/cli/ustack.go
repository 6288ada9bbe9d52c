package cli

import (
	"cmp"
	"flag"
	"fmt"
)

// UStack holds the flags of user stacks a tracer takes: --ustack, or
// --ustack=fp, walks the frame pointers; --ustack=dwarf copies the top of
// the stack at each hit for an unwind by .eh_frame, as perf's
// --call-graph dwarf does, at most --ustack-size BYTES of it;
// --ustack-depth N keeps at most N frames and, alone, implies --ustack.
type UStack struct {
	maxDepth, defCopy, maxCopy int
	on, dwarf                  bool
	depth, copy                int
}

// Flags defines the flags on fs, with maxDepth frames the largest value
// and default of --ustack-depth, and defCopy and maxCopy bytes the
// default and largest of --ustack-size.
func (u *UStack) Flags(fs *flag.FlagSet, maxDepth, defCopy, maxCopy int) {
	u.maxDepth, u.defCopy, u.maxCopy = maxDepth, defCopy, maxCopy
	fs.BoolFunc("ustack", "put the thread's user stack, symbolized, in each event: walked by frame pointers (--ustack, --ustack=fp) or copied and unwound by .eh_frame (--ustack=dwarf)", func(v string) error {
		switch v {
		case "true", "fp":
			u.dwarf = false
		case "dwarf":
			u.dwarf = true
		default:
			return fmt.Errorf("%q: not fp or dwarf", v)
		}
		u.on = true
		return nil
	})
	fs.IntVar(&u.copy, "ustack-size", 0, fmt.Sprintf("with --ustack=dwarf, copy at most `BYTES` of the stack at each hit (default %d, at most %d)", defCopy, maxCopy))
	fs.IntVar(&u.depth, "ustack-depth", 0, fmt.Sprintf("with --ustack (or alone) or --by ustack, keep at most `N` frames of a stack (default %d)", maxDepth))
}

// Check checks the values of the flags set (by name, as fs.Visit gives
// them) and returns the frames to keep, 0 without --ustack nor
// --ustack-depth, and the bytes to copy, 0 but with --ustack=dwarf.
func (u *UStack) Check(set map[string]bool) (depth, copy int, err error) {
	switch {
	case set["ustack-depth"] && (u.depth < 1 || u.depth > u.maxDepth):
		return 0, 0, fmt.Errorf("--ustack-depth %d: not in [1, %d]", u.depth, u.maxDepth)
	case set["ustack-size"] && !u.dwarf:
		return 0, 0, fmt.Errorf("--ustack-size takes --ustack=dwarf")
	case set["ustack-size"] && (u.copy < 8 || u.copy > u.maxCopy):
		return 0, 0, fmt.Errorf("--ustack-size %d: not in [8, %d]", u.copy, u.maxCopy)
	}
	if u.on {
		depth = cmp.Or(u.depth, u.maxDepth)
	} else {
		depth = u.depth
	}
	if u.dwarf {
		copy = cmp.Or(u.copy, u.defCopy)
	}
	return depth, copy, nil
}
