package stapsdt

import (
	"errors"
	"fmt"
)

// ErrNotELF is returned for input that is not an ELF file at all.
var ErrNotELF = errors.New("not an ELF file")

// A FormatError reports a malformed note: Off is the offset of the note in
// the file, Msg what is wrong with it.
type FormatError struct {
	Off uint64
	Msg string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("malformed stapsdt note at file offset %#x: %s", e.Off, e.Msg)
}

// ErrMisaligned is matched by the OffsetError of a semaphore that is not
// 2-byte aligned. Its file offset is still computed, so that tools can
// show what lies there; it must not be used as a reference counter.
var ErrMisaligned = errors.New("not 2-byte aligned")

// An OffsetError reports an address that no suitable PT_LOAD segment
// covers, so that it has no file offset to attach a uprobe or a reference
// counter by, or a semaphore that cannot serve as one.
type OffsetError struct {
	What string // "pc" or "semaphore"
	Addr uint64
	Msg  string
	Err  error // a sentinel such as ErrMisaligned, or nil
}

func (e *OffsetError) Error() string {
	return fmt.Sprintf("%s %#x %s", e.What, e.Addr, e.Msg)
}

func (e *OffsetError) Unwrap() error { return e.Err }

// MaxFormatErrors is the number of malformed notes of a file reported one
// by one, each as a *FormatError; the others are counted in one more
// error, so that a file of a million damaged notes gives a few lines and
// no million error values.
const MaxFormatErrors = 10

// errorList collects the errors of one file: every error about a section,
// and the first MaxFormatErrors malformed notes.
type errorList struct {
	errs []error
	more int // malformed notes past MaxFormatErrors
	bad  int // malformed notes reported
}

func (l *errorList) add(err error) { l.errs = append(l.errs, err) }

// note records a malformed note at file offset off. msg, which says what
// is wrong with it, is only called for the notes that are reported. A nil
// list drops the errors.
func (l *errorList) note(off uint64, msg func() string) {
	if l == nil {
		return
	}
	if l.bad == MaxFormatErrors {
		l.more++
		return
	}
	l.bad++
	l.errs = append(l.errs, &FormatError{Off: off, Msg: msg()})
}

// err returns the errors joined, or nil.
func (l *errorList) err() error {
	if l.more > 0 {
		return errors.Join(append(l.errs, fmt.Errorf("%d more malformed stapsdt notes", l.more))...)
	}
	return errors.Join(l.errs...)
}
