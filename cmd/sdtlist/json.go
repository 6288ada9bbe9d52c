package main

import (
	"debug/elf"
	"io"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/event"
)

// ndjson writes one JSON object per site, as package event specifies it.
// A runtime's 20,000 probe sites must be listed faster than readelf
// prints them: the encoder appends to a reused buffer, and each argument
// string is parsed once per file.
type ndjson struct {
	w   io.Writer
	buf []byte
	enc siteEncoder
}

func newNDJSON(w io.Writer) *ndjson { return &ndjson{w: w} }

func (n *ndjson) flush() error { return nil }

func (n *ndjson) write(s *site) error {
	n.buf = n.enc.append(n.buf[:0], s)
	_, err := n.w.Write(n.buf)
	return err
}

// A siteEncoder turns sites into event.Site lines. It is not safe for
// concurrent use.
type siteEncoder struct {
	argv argvCache
	sema uint64 // the semaphore value of the site being encoded
}

// append appends the JSON line of s to b.
func (e *siteEncoder) append(b []byte, s *site) []byte {
	p := s.probe
	argv := e.argv.get(s)
	t := event.Site{
		File: s.file, Provider: p.Provider, Name: p.Name,
		PC: p.PC, Base: p.Base, Semaphore: p.Semaphore, Args: p.Args,
		PCOffset: p.PCOffset, SemaphoreOffset: p.SemaphoreOffset,
		NotePC: p.NotePC, NoteSemaphore: p.NoteSemaphore,
		PCError: errorText(p.PCOffsetErr), SemaphoreError: errorText(p.SemaphoreOffsetErr),
		Argv: argv.argv,
	}
	if l := s.live; l != nil {
		t.PID, t.Addr = l.pid, l.addr
		t.Armed, t.ArmedError = l.armed, errorText(l.armedErr)
		t.Orphaned, t.OrphanedError, t.Owner = l.orphaned, errorText(l.ownerErr), l.owner
		t.SemaphoreAddr, t.SemaphoreValueError = l.semaphoreAddr, errorText(l.semaphoreErr)
		if l.semaphoreErr == nil {
			e.sema = uint64(l.semaphoreValue)
			t.SemaphoreValue = &e.sema
		}
	}
	return event.AppendSiteArgv(b, &t, argv.json)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// An argvCache holds the parsed arguments of each argument string of one
// file, and their JSON. The sites of a file share few argument strings
// (20,000 sites of a generated program have about 50), and parsing and
// encoding them is half the work of a line.
type argvCache struct {
	file    string
	machine elf.Machine
	argv    map[string]argv
	parsed  []argspec.Arg
}

type argv struct {
	argv []event.SiteArg
	json []byte
}

// get returns the argv of s.
func (c *argvCache) get(s *site) argv {
	if c.argv == nil || c.file != s.file || c.machine != s.machine {
		c.file, c.machine, c.argv = s.file, s.machine, make(map[string]argv)
	}
	args := s.probe.Args
	if a, ok := c.argv[args]; ok {
		return a
	}
	c.parsed = argspec.AppendArgs(c.parsed[:0], args, s.machine)
	a := argv{argv: make([]event.SiteArg, len(c.parsed))}
	for i := range c.parsed {
		a.argv[i] = siteArg(&c.parsed[i])
	}
	a.json = event.AppendArgv(nil, a.argv)
	c.argv[args] = a
	return a
}

// siteArg returns the argv element of a parsed argument.
func siteArg(a *argspec.Arg) event.SiteArg {
	j := event.SiteArg{Raw: a.Raw, Size: a.Size, Signed: a.Signed, Float: a.Float, RegOffset: -1}
	if a.Err != nil {
		j.Error = a.Err.Error()
		return j
	}
	j.Kind, j.Location = a.Kind.String(), a.Location()
	if a.Kind == argspec.Const {
		j.Value = a.Offset
		return j
	}
	if j.Reg = a.Base.Base; j.Reg != "" && a.Base.Offset >= 0 {
		j.RegOffset = a.Base.Offset
	}
	switch a.Kind {
	case argspec.Register, argspec.FloatRegister:
		if a.Index.Name != "" {
			j.RegHigh = a.Index.Base
		}
	case argspec.SIB:
		j.Index, j.Scale = a.Index.Base, a.Scale
		fallthrough
	case argspec.Memory:
		j.Offset, j.Symbol = a.Offset, a.Symbol
		if a.Symbol != "" {
			j.Reloc = a.Reloc
		}
	case argspec.Symbol:
		j.Offset, j.Symbol = a.Offset, a.Symbol
	}
	return j
}
