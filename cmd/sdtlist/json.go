package main

import (
	"io"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// jsonLines writes one JSON object per site, as package ndjson specifies it.
// A runtime's 20,000 probe sites must be listed faster than readelf
// prints them: the encoder appends to a reused buffer, and each argument
// string is parsed once per file.
type jsonLines struct {
	w   io.Writer
	buf []byte
	enc siteEncoder
}

func newNDJSON(w io.Writer) *jsonLines { return &jsonLines{w: w} }

func (n *jsonLines) flush() error { return nil }

func (n *jsonLines) write(s *site) error {
	n.buf = n.enc.append(n.buf[:0], s)
	_, err := n.w.Write(n.buf)
	return err
}

// A siteEncoder turns sites into ndjson.Site lines. It is not safe for
// concurrent use.
type siteEncoder struct {
	argv ndjson.ArgvCache
	sema uint64 // the semaphore value of the site being encoded
}

// append appends the JSON line of s to b.
func (e *siteEncoder) append(b []byte, s *site) []byte {
	p := s.probe
	argv, argvJSON := e.argv.Get(s.file, s.machine, p.Args)
	t := ndjson.Site{
		File: s.file, Provider: p.Provider, Name: p.Name,
		PC: p.PC, Base: p.Base, Semaphore: p.Semaphore, Args: p.Args,
		PCOffset: p.PCOffset, SemaphoreOffset: p.SemaphoreOffset, Insn: p.Insn.String(),
		NotePC: p.NotePC, NoteSemaphore: p.NoteSemaphore,
		PCError: errorText(p.PCOffsetErr), SemaphoreError: errorText(p.SemaphoreOffsetErr),
		Argv: argv,
	}
	if l := s.live; l != nil {
		t.PID, t.Addr = l.Object.Pid, l.Addr
		t.Armed, t.ArmedError = l.Armed, errorText(l.ArmedErr)
		t.Orphaned, t.OrphanedError, t.Owners = l.Orphaned, errorText(l.OwnersErr), l.Owners
		if l.Hook {
			t.Hook = "loader"
		}
		// A misaligned semaphore's bytes are shown as those of any
		// other: semaphore_error says it is no counter.
		if sem := l.Semaphore; sem != nil {
			t.SemaphoreAddr, t.SemaphoreValueError = sem.Addr, errorText(sem.Err)
			if sem.Err == nil {
				e.sema = uint64(sem.Value)
				t.SemaphoreValue = &e.sema
			}
		}
	}
	return ndjson.AppendSiteArgv(b, &t, argvJSON)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
