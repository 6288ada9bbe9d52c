package ndjson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
)

// A LineError reports a line that holds no record. Reading can go on.
type LineError struct {
	Line      int  // from 1
	Truncated bool // the last line of the input, with no newline
	Err       error
}

func (e *LineError) Error() string {
	if e.Truncated {
		return fmt.Sprintf("line %d (truncated): %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// MaxLineSize is the longest line a Reader decodes: 1 MiB, where a line of
// sdtattach takes a few KiB at most. A longer line is skipped without
// being held in memory, and reported as a *LineError whose Err is
// ErrLineTooLong.
const MaxLineSize = 1 << 20

// ErrLineTooLong is the error of a line longer than MaxLineSize.
var ErrLineTooLong = fmt.Errorf("longer than %d bytes; skipped", MaxLineSize)

// A Reader reads records, one per line. Blank lines are skipped.
type Reader struct {
	br     *bufio.Reader
	line   int
	long   []byte // a line longer than br's buffer
	last   []byte
	intern map[string]string
	spare  spare
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), intern: make(map[string]string)}
}

// Read decodes the next record into e. At the end of the input it returns
// io.EOF; for a line that holds no record, a *LineError.
func (r *Reader) Read(e *Event) (Kind, error) {
	for {
		line, err := r.readLine()
		if errors.Is(err, ErrLineTooLong) {
			return 0, &LineError{Line: r.line, Truncated: len(line) == 0 || line[len(line)-1] != '\n', Err: err}
		}
		if err != nil {
			return 0, err
		}
		complete := len(line) > 0 && line[len(line)-1] == '\n'
		r.last = line
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		k, err := parse(line, e, r.intern, &r.spare)
		if err != nil {
			return 0, &LineError{Line: r.line, Truncated: !complete, Err: err}
		}
		return k, nil
	}
}

// Bytes returns the line of the last record read, valid until the next
// call to Read.
func (r *Reader) Bytes() []byte { return r.last }

// Line returns the number of the last line read.
func (r *Reader) Line() int { return r.line }

// Buffered reports whether input is waiting, so that the next Read
// returns without blocking. Writers flush their output when it is not.
func (r *Reader) Buffered() bool { return r.br.Buffered() > 0 }

// readLine returns the next line, with its newline unless it is the last
// of the input. For a line longer than MaxLineSize, it reads to its end
// and returns ErrLineTooLong with the line's last piece.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	tooLong := false
	if errors.Is(err, bufio.ErrBufferFull) {
		r.long = append(r.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = r.br.ReadSlice('\n')
			switch {
			case tooLong:
			case len(r.long)+len(line) > MaxLineSize:
				tooLong = true
			default:
				if cap(r.long)-len(r.long) < len(line) {
					// Doubled, not grown by a quarter: a long line
					// then costs twice its size, not five times.
					r.long = slices.Grow(r.long, max(len(line), len(r.long)))
				}
				r.long = append(r.long, line...)
			}
		}
		if !tooLong {
			line = r.long
		}
	}
	if len(line) > 0 || tooLong {
		r.line++
		if err == io.EOF {
			err = nil
		}
	}
	if err == nil && tooLong {
		err = ErrLineTooLong
	}
	return line, err
}
