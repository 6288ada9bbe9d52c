package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// manyProbes returns a file of n probe sites with varied names and
// argument strings, some of them bad.
func manyProbes(n int) *stapsdt.File {
	args := []string{"", "-4@%edi 8@%rsi", "8@-16(%rbp) -2@4(%rax,%rbx,2)", "4@$-7 8f@%xmm0", "8@g+8(%rip)", "junk"}
	f := &stapsdt.File{Class: elf.ELFCLASS64, Machine: elf.EM_X86_64}
	for i := range n {
		f.Sites = append(f.Sites, stapsdt.Site{
			Provider: fmt.Sprintf("p%d", i%3),
			Name:     fmt.Sprintf("n%d", i%7),
			Args:     args[i%len(args)],
			PC:       0x1000 + uint64(i),
			NotePC:   0x1000 + uint64(i),
		})
	}
	return f
}

func TestWriteParallel(t *testing.T) {
	for _, tt := range []struct {
		sites int
		pats  []probespec.Spec
	}{
		{1, nil},
		{chunkSites, nil},
		{chunkSites + 1, nil},
		{parallelMin * 5, nil},
		{parallelMin*3 + 17, []probespec.Spec{{Provider: "p1", Name: "*"}}},
		{parallelMin * 2, []probespec.Spec{{Provider: "*", Name: "n3"}, {Provider: "p2", Name: "n[01]"}}},
		{parallelMin, []probespec.Spec{{Provider: "none", Name: "*"}}},
	} {
		t.Run(fmt.Sprint(tt.sites, tt.pats), func(t *testing.T) {
			f := manyProbes(tt.sites)
			var want, got bytes.Buffer
			if err := writeProbes("file", f, tt.pats, nil, newNDJSON(&want)); err != nil {
				t.Fatal(err)
			}
			if err := newNDJSON(&got).writeParallel("file", f, tt.pats); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("parallel output (%d bytes) differs from the sequential one (%d bytes)", got.Len(), want.Len())
			}
		})
	}
}

// failWriter accepts n writes, then fails.
type failWriter struct{ n int }

var errFull = errors.New("disk full")

func (w *failWriter) Write(b []byte) (int, error) {
	if w.n == 0 {
		return 0, errFull
	}
	w.n--
	return len(b), nil
}

func TestWriteParallelError(t *testing.T) {
	f := manyProbes(parallelMin * 8)
	for _, n := range []int{0, 1, 5} {
		err := newNDJSON(&failWriter{n}).writeParallel("file", f, nil)
		if !errors.Is(err, errFull) {
			t.Errorf("after %d writes: %v, want %v", n, err, errFull)
		}
	}
}
