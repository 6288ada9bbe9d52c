package argspec

import (
	"debug/elf"
	"errors"
	"fmt"
)

// ErrNotSupported is matched by every *Error: the operand form or the
// machine is one this package cannot decode.
var ErrNotSupported = errors.New("argument not supported")

// An Error reports an argument that could not be decoded.
type Error struct {
	Arg     string // the token
	Machine elf.Machine
	Msg     string // what is wrong, e.g. `unknown register "%foo"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("argument %q (%v): %s", e.Arg, e.Machine, e.Msg)
}

// Is reports whether target is ErrNotSupported.
func (e *Error) Is(target error) bool { return target == ErrNotSupported }
