package main

import (
	"debug/elf"
	"io"
	"strconv"

	"github.com/sdtkit/sdtkit/internal/jsonenc"
	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// ndjson writes one JSON object per site; doc.go specifies every field.
//
// The objects are appended by hand rather than through reflection: a
// runtime's 20,000 probe sites must be listed faster than readelf prints
// them, and this is the part of the work that grows with the output.
type ndjson struct {
	w     io.Writer
	buf   []byte
	cache argvCache
}

func newNDJSON(w io.Writer) *ndjson { return &ndjson{w: w} }

func (n *ndjson) flush() error { return nil }

func (n *ndjson) write(s *site) error {
	n.buf = appendSite(n.buf[:0], s, &n.cache)
	_, err := n.w.Write(n.buf)
	return err
}

// An argvCache holds the encoded argv of each argument string of one
// file. The sites of a file share few argument strings (20,000 sites of
// a generated program have about 50, the 566 of a libjvm.so 141), and
// parsing and encoding them is half the work of a line.
type argvCache struct {
	file    string
	machine elf.Machine
	enc     map[string][]byte
	argv    []argspec.Arg
}

// appendArgv appends the "argv" member of s, from c when the file's
// argument string was seen before.
func (c *argvCache) appendArgv(b []byte, s *site) []byte {
	if c.enc == nil || c.file != s.file || c.machine != s.machine {
		c.file, c.machine, c.enc = s.file, s.machine, make(map[string][]byte)
	}
	args := s.probe.Args
	if enc, ok := c.enc[args]; ok {
		return append(b, enc...)
	}
	start := len(b)
	b = append(b, `,"argv":[`...)
	c.argv = argspec.AppendArgs(c.argv[:0], args, s.machine)
	for i := range c.argv {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendArg(b, &c.argv[i])
	}
	b = append(b, ']')
	c.enc[args] = append([]byte(nil), b[start:]...)
	return b
}

// appendSite appends the JSON line of s to b.
func appendSite(b []byte, s *site, c *argvCache) []byte {
	p := s.probe
	b = append(b, `{"file":`...)
	b = jsonenc.AppendString(b, s.file)
	b = appendStringField(b, "provider", p.Provider)
	b = appendStringField(b, "name", p.Name)
	b = appendUintField(b, "pc", p.PC)
	b = appendUintField(b, "base", p.Base)
	b = appendUintField(b, "semaphore", p.Semaphore)
	b = appendStringField(b, "args", p.Args)
	b = appendUintField(b, "pc_offset", p.PCOffset)
	b = appendUintField(b, "semaphore_offset", p.SemaphoreOffset)
	if p.Adjusted() {
		b = appendUintField(b, "note_pc", p.NotePC)
		b = appendUintField(b, "note_semaphore", p.NoteSemaphore)
	}
	if p.PCOffsetErr != nil {
		b = appendStringField(b, "pc_error", p.PCOffsetErr.Error())
	}
	if p.SemaphoreOffsetErr != nil {
		b = appendStringField(b, "semaphore_error", p.SemaphoreOffsetErr.Error())
	}
	b = c.appendArgv(b, s)
	if l := s.live; l != nil {
		b = appendLive(b, l, p.HasSemaphore())
	}
	return append(b, "}\n"...)
}

// appendLive appends the fields -p adds.
func appendLive(b []byte, l *liveState, hasSemaphore bool) []byte {
	b = appendIntField(b, "pid", int64(l.pid))
	if l.addr != 0 {
		b = appendUintField(b, "addr", l.addr)
	}
	if l.armedErr != nil {
		b = appendStringField(b, "armed_error", l.armedErr.Error())
	} else {
		b = appendBoolField(b, "armed", l.armed)
	}
	switch {
	case !l.armed:
	case l.ownerErr != nil:
		b = appendStringField(b, "orphaned_error", l.ownerErr.Error())
	case l.orphaned:
		b = appendBoolField(b, "orphaned", true)
	default:
		b = appendBoolField(b, "orphaned", false)
		b = appendStringField(b, "owner", l.owner)
	}
	if !hasSemaphore {
		return b
	}
	if l.semaphoreAddr != 0 {
		b = appendUintField(b, "semaphore_addr", l.semaphoreAddr)
	}
	if l.semaphoreErr != nil {
		return appendStringField(b, "semaphore_value_error", l.semaphoreErr.Error())
	}
	return appendUintField(b, "semaphore_value", uint64(l.semaphoreValue))
}

// appendArg appends the JSON object of one parsed argument.
func appendArg(b []byte, a *argspec.Arg) []byte {
	b = append(b, `{"raw":`...)
	b = jsonenc.AppendString(b, a.Raw)
	b = appendIntField(b, "size", int64(a.Size))
	b = appendBoolField(b, "signed", a.Signed)
	if a.Float {
		b = appendBoolField(b, "float", true)
	}
	if a.Err != nil {
		b = appendStringField(b, "error", a.Err.Error())
		return append(b, '}')
	}
	b = appendStringField(b, "kind", a.Kind.String())
	b = appendKey(b, "location")
	b = appendLocation(b, a)
	switch a.Kind {
	case argspec.Const:
		b = appendIntField(b, "value", a.Offset)
	case argspec.Register, argspec.FloatRegister:
		b = appendReg(b, a.Base)
		if a.Index.Name != "" {
			b = appendStringField(b, "reg_high", a.Index.Base)
		}
	case argspec.Memory:
		b = appendReg(b, a.Base)
		b = appendIntField(b, "offset", a.Offset)
		b = appendReloc(b, a)
	case argspec.SIB:
		b = appendReg(b, a.Base)
		b = appendStringField(b, "index", a.Index.Base)
		b = appendIntField(b, "scale", int64(a.Scale))
		b = appendIntField(b, "offset", a.Offset)
		b = appendReloc(b, a)
	case argspec.Symbol:
		b = appendReg(b, a.Base)
		b = appendStringField(b, "symbol", a.Symbol)
		b = appendIntField(b, "offset", a.Offset)
	}
	return append(b, '}')
}

// appendReloc appends symbol, and reloc when it has one, for a memory or
// sib operand whose displacement holds a symbol; nothing for the others.
func appendReloc(b []byte, a *argspec.Arg) []byte {
	if a.Symbol == "" {
		return b
	}
	b = appendStringField(b, "symbol", a.Symbol)
	if a.Reloc == "" {
		return b
	}
	return appendStringField(b, "reloc", a.Reloc)
}

// appendReg appends reg and reg_offset for r, or nothing when there is no
// register (an absolute symbol, a sib operand without base).
func appendReg(b []byte, r argspec.Reg) []byte {
	if r.Base == "" {
		return b
	}
	b = appendStringField(b, "reg", r.Base)
	if r.Offset >= 0 {
		b = appendIntField(b, "reg_offset", int64(r.Offset))
	}
	return b
}

func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStringField(b []byte, key, v string) []byte {
	return jsonenc.AppendString(appendKey(b, key), v)
}

func appendUintField(b []byte, key string, v uint64) []byte {
	return strconv.AppendUint(appendKey(b, key), v, 10)
}

func appendIntField(b []byte, key string, v int64) []byte {
	return strconv.AppendInt(appendKey(b, key), v, 10)
}

func appendBoolField(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(b, key), v)
}

// appendLocation appends the canonical operand of a as a JSON string,
// without a string of its own in the common case where it needs no
// escaping.
func appendLocation(b []byte, a *argspec.Arg) []byte {
	start := len(b)
	b = append(b, '"')
	b = a.AppendLocation(b)
	for _, c := range b[start+1:] {
		if !jsonenc.Safe[c] {
			return jsonenc.AppendString(b[:start], string(b[start+1:]))
		}
	}
	return append(b, '"')
}
