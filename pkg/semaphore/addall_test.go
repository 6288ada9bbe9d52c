package semaphore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// mapValues maps a page of a new file into the test process with one
// semaphore per value, 4 bytes apart from file offset 0x10, and returns
// the mapping and the semaphores.
func mapValues(t *testing.T, values ...uint16) ([]byte, []Semaphore) {
	t.Helper()
	b, s := mapFile(t, unix.MAP_PRIVATE, unix.PROT_READ|unix.PROT_WRITE)
	sems := make([]Semaphore, len(values))
	for i, v := range values {
		sems[i] = *s
		sems[i].Name = fmt.Sprintf("q%d", i)
		sems[i].Offset += uint64(4 * i)
		sems[i].Addr += uint64(4 * i)
		binary.NativeEndian.PutUint16(b[sems[i].Offset:], v)
	}
	return b, sems
}

// values returns the semaphores' values in b.
func values(b []byte, sems []Semaphore) []uint16 {
	var vs []uint16
	for _, s := range sems {
		vs = append(vs, binary.NativeEndian.Uint16(b[s.Offset:]))
	}
	return vs
}

// hookMem is process memory that calls before ahead of each write,
// numbered from 1, and fails the write with the error before returns.
type hookMem struct {
	memory
	writes int
	before func(n int) error
}

func (m *hookMem) WriteAt(b []byte, off int64) (int, error) {
	m.writes++
	if err := m.before(m.writes); err != nil {
		return 0, err
	}
	return m.memory.WriteAt(b, off)
}

// AddAll writes every semaphore of a process or none, and changes back
// what it wrote when a write fails part way.
func TestAddAll(t *testing.T) {
	errIO := fmt.Errorf("process %d: write 2 bytes: %w", os.Getpid(), syscall.EIO)
	errExited := fmt.Errorf("process %d: %w", os.Getpid(), process.ErrNoProcess)
	for _, tt := range []struct {
		name    string
		values  []uint16
		delta   int
		refuse  int // index of a semaphore to make unwritable, or -1
		before  func(b []byte, sems []Semaphore, n int) error
		want    []uint16 // values afterwards
		err     error    // nil, or what the error matches
		undone  int      // semaphores changed back
		failed  int      // semaphores that could not be
		changes []Change // on success, Before and After of each
	}{
		{name: "all fit", values: []uint16{0, 5}, delta: 1, refuse: -1,
			want: []uint16{1, 6}, changes: []Change{{Before: 0, After: 1}, {Before: 5, After: 6}}},
		{name: "down", values: []uint16{1, 5}, delta: -1, refuse: -1,
			want: []uint16{0, 4}, changes: []Change{{Before: 1, After: 0}, {Before: 5, After: 4}}},
		{name: "one would overflow", values: []uint16{0, 65535}, delta: 1, refuse: -1,
			want: []uint16{0, 65535}, err: ErrOverflow},
		{name: "one would underflow", values: []uint16{1, 0}, delta: -1, refuse: -1,
			want: []uint16{1, 0}, err: ErrUnderflow},
		{name: "one refused", values: []uint16{0, 0}, delta: 1, refuse: 1,
			want: []uint16{0, 0}, err: ErrRefused},
		{name: "changed underneath", values: []uint16{0, 7}, delta: 1, refuse: -1,
			before: func(b []byte, sems []Semaphore, n int) error {
				if n == 1 {
					binary.NativeEndian.PutUint16(b[sems[1].Offset:], 65535)
				}
				return nil
			},
			want: []uint16{0, 65535}, err: ErrOverflow, undone: 1},
		{name: "write fails", values: []uint16{0, 7}, delta: 1, refuse: -1,
			before: func(_ []byte, _ []Semaphore, n int) error {
				if n == 2 {
					return errIO
				}
				return nil
			},
			want: []uint16{0, 7}, err: syscall.EIO, undone: 1},
		{name: "undo fails", values: []uint16{3, 4, 7}, delta: 1, refuse: -1,
			before: func(_ []byte, _ []Semaphore, n int) error {
				if n == 3 || n == 4 { // the third change, then the first undo
					return errIO
				}
				return nil
			},
			want: []uint16{3, 5, 7}, err: syscall.EIO, undone: 1, failed: 1},
		{name: "process exits", values: []uint16{0, 7}, delta: 1, refuse: -1,
			before: func(_ []byte, _ []Semaphore, n int) error {
				if n >= 2 {
					return errExited
				}
				return nil
			},
			want: []uint16{1, 7}, err: process.ErrNoProcess},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, sems := mapValues(t, tt.values...)
			if tt.refuse >= 0 {
				sems[tt.refuse].Inode++
			}
			p, err := Open(os.Getpid(), true)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if tt.before != nil {
				p.mem = &hookMem{memory: p.mem, before: func(n int) error { return tt.before(b, sems, n) }}
			}
			changes, err := p.AddAll(sems, tt.delta)
			if got := values(b, sems); !slices.Equal(got, tt.want) {
				t.Errorf("AddAll(%v, %+d) left %v, want %v (error %v)", tt.values, tt.delta, got, tt.want, err)
			}
			if tt.err == nil {
				if err != nil || len(changes) != len(tt.changes) {
					t.Fatalf("AddAll(%v, %+d) = %d changes, %v, want %d", tt.values, tt.delta, len(changes), err, len(tt.changes))
				}
				for i, c := range changes {
					if c.Semaphore != &sems[i] || c.Before != tt.changes[i].Before || c.After != tt.changes[i].After || c.Changed != nil {
						t.Errorf("change %d = %+v, want %d -> %d of semaphore %d", i, c, tt.changes[i].Before, tt.changes[i].After, i)
					}
				}
				return
			}
			if !errors.Is(err, tt.err) || changes != nil {
				t.Fatalf("AddAll(%v, %+d) = %v, %v, want an error matching %v", tt.values, tt.delta, changes, err, tt.err)
			}
			var ue *UndoError
			if isUndo := errors.As(err, &ue); isUndo != (tt.undone+tt.failed > 0) {
				t.Fatalf("AddAll(%v, %+d) = %v: an *UndoError: %v, want %v", tt.values, tt.delta, err, isUndo, !isUndo)
			}
			if ue != nil && (len(ue.Undone) != tt.undone || len(ue.Failed) != tt.failed) {
				t.Errorf("AddAll(%v, %+d) = %v: %d undone, %d failed, want %d, %d", tt.values, tt.delta, err, len(ue.Undone), len(ue.Failed), tt.undone, tt.failed)
			}
		})
	}
}
