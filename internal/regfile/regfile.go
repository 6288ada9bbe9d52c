// Package regfile opens files that must be regular files, such as the ELF
// files named on a command line, without ever blocking: opening a named
// pipe waits for a writer, which may never come, and opening a device can
// have side effects.
package regfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is matched by the error of Open for a file that exists but
// is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// A TypeError reports a file of another type than a regular file.
type TypeError struct {
	Mode fs.FileMode
}

func (e *TypeError) Error() string { return "is a " + TypeName(e.Mode) }

// Is makes a TypeError match ErrNotRegular.
func (e *TypeError) Is(target error) bool { return target == ErrNotRegular }

// TypeName names the type of a file of mode m, as in "is a named pipe".
func TypeName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeDir != 0:
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "file of unknown type"
}

// Open opens the named file for reading. It is opened with O_NONBLOCK, so
// that a named pipe, even one that replaced a regular file after a
// caller's stat, does not block, and it is refused after an fstat unless
// it is a regular file. The errors are *fs.PathError, whose Err is a
// *TypeError for a file of another type.
func Open(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: &TypeError{Mode: st.Mode()}}
	}
	// O_NONBLOCK has no effect on the reads of a regular file.
	return f, nil
}
