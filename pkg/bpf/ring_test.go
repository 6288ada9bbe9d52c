package bpf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// recordSize is the size of the records the test programs write: a
// sequence number and a pattern derived from it.
const recordSize = 32

// Flags of bpf_ringbuf_output.
const (
	rbNoWakeup    = 1
	rbForceWakeup = 2
)

// testRing is a ring buffer map, the ring reading it, and socket filter
// programs that write records into it when run with BPF_PROG_TEST_RUN.
type testRing struct {
	*ring
	m        *ebpf.Map
	output   map[int64]*ebpf.Program // by bpf_ringbuf_output flags
	discard  *ebpf.Program
	produced uint64
}

func newTestRing(t *testing.T, size int, flush time.Duration) *testRing {
	t.Helper()
	requireRoot(t)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.RingBuf, MaxEntries: uint32(size)})
	if err != nil {
		t.Fatalf("ring buffer map: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	tr := &testRing{m: m, output: map[int64]*ebpf.Program{}}
	for _, flags := range []int64{0, rbNoWakeup, rbForceWakeup} {
		// Copy the packet (after its Ethernet header) to the stack and
		// from there into the ring.
		tr.output[flags] = testProgram(t, asm.Instructions{
			asm.Mov.Reg(asm.R6, asm.R1),
			asm.Mov.Reg(asm.R1, asm.R6),
			asm.Mov.Imm(asm.R2, 0),
			asm.Mov.Reg(asm.R3, asm.RFP),
			asm.Add.Imm(asm.R3, -recordSize),
			asm.Mov.Imm(asm.R4, recordSize),
			asm.FnSkbLoadBytes.Call(),
			asm.JNE.Imm(asm.R0, 0, "out"),
			asm.LoadMapPtr(asm.R1, m.FD()),
			asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, -recordSize),
			asm.Mov.Imm(asm.R3, recordSize),
			asm.Mov.Imm(asm.R4, int32(flags)),
			asm.FnRingbufOutput.Call(),
			asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
			asm.Return(),
		})
	}
	tr.discard = testProgram(t, asm.Instructions{
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Imm(asm.R2, recordSize),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnRingbufReserve.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R2, 0),
		asm.FnRingbufDiscard.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	})
	if tr.ring, err = newRing(m.FD(), size, flush); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func testProgram(t *testing.T, insns asm.Instructions) *ebpf.Program {
	t.Helper()
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.SocketFilter, License: "GPL", Instructions: insns})
	if err != nil {
		t.Fatalf("load test program: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// record returns the contents of record seq.
func record(seq uint64) []byte {
	b := make([]byte, recordSize)
	binary.LittleEndian.PutUint64(b, seq)
	for i := 8; i < recordSize; i++ {
		b[i] = byte(seq) + byte(i)
	}
	return b
}

// produce writes the next n records with bpf_ringbuf_output flags.
func (tr *testRing) produce(t *testing.T, n int, flags int64) {
	t.Helper()
	for range n {
		// The kernel takes the 14-byte Ethernet header off the packet
		// of a socket filter's test run.
		data := append(make([]byte, 14), record(tr.produced)...)
		if _, err := tr.output[flags].Run(&ebpf.RunOptions{Data: data}); err != nil {
			t.Fatalf("run output program: %v", err)
		}
		tr.produced++
	}
}

func (tr *testRing) produceDiscarded(t *testing.T) {
	t.Helper()
	if _, err := tr.discard.Run(&ebpf.RunOptions{Data: make([]byte, 14+recordSize)}); err != nil {
		t.Fatalf("run discard program: %v", err)
	}
}

// consume reads the next record and checks that it is record want.
func (tr *testRing) consume(t *testing.T, want uint64) {
	t.Helper()
	err := tr.read(func(b []byte) error {
		if !bytes.Equal(b, record(want)) {
			return fmt.Errorf("got record %x, want record %d (%x)", b, want, record(want))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRingOrder fills a one-page ring and empties it in batches of
// varying sizes, so that records wrap around its end at every offset:
// every record arrives once, in order and intact, and Pending counts the
// bytes not read.
func TestRingOrder(t *testing.T) {
	page := os.Getpagesize()
	tr := newTestRing(t, page, time.Hour)
	const stride = 8 + recordSize
	// What fits, less the space a reader may hold back between releases.
	most := (page - page/16) / stride
	var next uint64
	for round := range 200 {
		n := 1 + (round*37)%most
		tr.produce(t, n, rbNoWakeup)
		if got, want := tr.pending(), n*stride; got != want {
			t.Fatalf("round %d: pending() = %d after %d records, want %d", round, got, n, want)
		}
		for range n {
			tr.consume(t, next)
			next++
		}
		if got := tr.pending(); got != 0 {
			t.Fatalf("round %d: pending() = %d after reading everything, want 0", round, got)
		}
		// The space read goes back to the kernel in steps.
		if lag := tr.pos.Load() - atomic.LoadUint64(tr.consPos); lag >= tr.release {
			t.Fatalf("round %d: %d bytes read and not given back, want fewer than %d", round, lag, tr.release)
		}
	}
	if wrapped := next * stride / uint64(page); wrapped < 20 {
		t.Fatalf("the ring wrapped %d times, want at least 20", wrapped)
	}
}

// TestRingDiscard checks that discarded records are skipped.
func TestRingDiscard(t *testing.T) {
	tr := newTestRing(t, os.Getpagesize(), time.Hour)
	tr.produce(t, 1, 0)
	tr.produceDiscarded(t)
	tr.produceDiscarded(t)
	tr.produce(t, 1, 0)
	tr.consume(t, 0)
	tr.consume(t, 1)
	if got := tr.pending(); got != 0 {
		t.Errorf("pending() = %d, want 0", got)
	}
}

// TestRingError checks that an error of the callback is returned and that
// the record is consumed all the same.
func TestRingError(t *testing.T) {
	tr := newTestRing(t, os.Getpagesize(), time.Hour)
	tr.produce(t, 2, 0)
	bad := errors.New("bad record")
	if err := tr.read(func([]byte) error { return bad }); err != bad {
		t.Fatalf("read() = %v, want %v", err, bad)
	}
	tr.consume(t, 1)
}

// TestRingWakeup checks that a waiting reader gets a record the program
// wakes it for at once, and one submitted without a wakeup within the
// flush interval.
func TestRingWakeup(t *testing.T) {
	const flush = 200 * time.Millisecond
	for _, tt := range []struct {
		flags  int64
		within time.Duration
	}{
		{rbForceWakeup, flush / 2},
		{rbNoWakeup, 5 * flush},
	} {
		t.Run(fmt.Sprintf("flags=%d", tt.flags), func(t *testing.T) {
			tr := newTestRing(t, os.Getpagesize(), flush)
			done := make(chan error, 1)
			var got time.Time
			go func() {
				done <- tr.read(func(b []byte) error {
					got = time.Now()
					if !bytes.Equal(b, record(0)) {
						return fmt.Errorf("got record %x, want %x", b, record(0))
					}
					return nil
				})
			}()
			// Let the reader go to sleep first.
			time.Sleep(flush / 4)
			start := time.Now()
			tr.produce(t, 1, tt.flags)
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * flush):
				t.Fatalf("no record after %v", 10*flush)
			}
			if d := got.Sub(start); d > tt.within {
				t.Errorf("record read %v after it was written, want within %v", d, tt.within)
			}
		})
	}
}

// TestRingClose checks that Close ends a read that waits, and that reads
// after Close fail.
func TestRingClose(t *testing.T) {
	tr := newTestRing(t, os.Getpagesize(), time.Hour)
	done := make(chan error, 1)
	go func() { done <- tr.read(func([]byte) error { return nil }) }()
	time.Sleep(50 * time.Millisecond)
	if err := tr.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("read() during Close = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("read() still waiting 5 s after Close")
	}
	if err := tr.read(func([]byte) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("read() after Close = %v, want ErrClosed", err)
	}
	if n := tr.pending(); n != 0 {
		t.Errorf("pending() after Close = %d, want 0", n)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
}
