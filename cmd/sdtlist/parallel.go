package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// Parsing the argument strings and encoding the sites is most of the work
// of listing a large file, and each site is independent of the others: on
// files with many sites, chunks of sites are encoded on every CPU and
// written in order.
const (
	// parallelMin is the number of probe sites from which a file is
	// encoded in parallel: below it, waking other threads costs more
	// than it saves.
	parallelMin = 1024
	// chunkSites is the number of sites of one chunk.
	chunkSites = 256
	// chunkBytes is the capacity a chunk's buffer starts with: room for
	// lines of 1 KiB, longer than those of the runtimes' and the
	// benchmark's files (500-700 bytes), so that a buffer is not grown
	// and copied again and again while it is filled.
	chunkBytes = chunkSites << 10
)

// A chunk is the encoded output of one run of sites.
type chunk struct {
	buf  []byte
	done chan struct{}
}

// writeParallel writes the matching probes of f as writeProbes does, with
// the encoding spread over GOMAXPROCS goroutines. At most 2 chunks per
// goroutine are held at a time, so the memory does not grow with the file
// when the output is slow to drain.
func (n *jsonLines) writeParallel(name string, f *stapsdt.File, pats []probespec.Spec) error {
	nchunks := (len(f.Sites) + chunkSites - 1) / chunkSites
	workers := min(runtime.GOMAXPROCS(0), nchunks)
	chunks := make([]chunk, nchunks)
	for i := range chunks {
		chunks[i].done = make(chan struct{})
	}
	// A token is taken before a chunk is claimed and given back once it
	// is written. Chunks are claimed in order, so the next chunk to write
	// always holds a token and is being encoded: there is no deadlock.
	tokens := make(chan []byte, 2*workers)
	for range cap(tokens) {
		tokens <- nil
	}
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			s := &site{file: name, machine: f.Machine}
			var enc siteEncoder
			for {
				buf := <-tokens
				i := int(next.Add(1)) - 1
				if i >= nchunks {
					return
				}
				if buf == nil {
					buf = make([]byte, 0, chunkBytes)
				}
				buf = buf[:0]
				for j := i * chunkSites; j < min((i+1)*chunkSites, len(f.Sites)); j++ {
					p := &f.Sites[j]
					if !probe.MatchAny(pats, p.Provider, p.Name) {
						continue
					}
					s.probe = p
					buf = enc.append(buf, s)
				}
				chunks[i].buf = buf
				close(chunks[i].done)
			}
		})
	}
	// After a failed write the remaining chunks are still waited for
	// (not written): the workers then end, and the file's few
	// milliseconds of work are all there is to waste.
	var err error
	for i := range chunks {
		<-chunks[i].done
		if err == nil {
			if _, werr := n.w.Write(chunks[i].buf); werr != nil {
				err = fmt.Errorf("write: %w", werr)
			}
		}
		tokens <- chunks[i].buf
		chunks[i].buf = nil
	}
	wg.Wait()
	return err
}
