package tracefs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"golang.org/x/sys/unix"
)

var le = binary.LittleEndian

// decode decodes one perf record into ev, reporting whether it is an
// event; a PERF_RECORD_LOST adds to Lost.
func (t *Tracer) decode(rec []byte, ev *hit.Event) bool {
	switch le.Uint32(rec) {
	case unix.PERF_RECORD_LOST:
		if len(rec) >= 24 {
			t.lost.Add(le.Uint64(rec[16:]))
		}
		return false
	case unix.PERF_RECORD_SAMPLE:
		t.samples++
	default:
		return false
	}
	sm := &t.smp
	if !t.samp.parse(rec, sm) || len(sm.raw) < 2 {
		t.skipped.Add(1)
		return false
	}
	pid, tid, raw := sm.pid, sm.tid, sm.raw
	switch {
	case t.cgroup != 0:
		// Of the cgroup of the -p process and its descendants, or not
		// traced.
		if sm.cgroup != t.cgroup {
			return false
		}
	case t.pid != 0 && int(pid) != t.pid:
		// A process the -p process forked: inherited, not traced.
		return false
	}
	id := uint32(le.Uint16(raw))
	ef := t.types[id]
	if ef == nil || ef.site != nil && ef.site.Offset+4 > len(raw) {
		t.skipped.Add(1)
		return false
	}
	num := uint32(ef.only)
	if ef.site != nil {
		num = le.Uint32(raw[ef.site.Offset:])
	}
	if num >= uint32(len(t.sites)) || t.sites[num] == nil || t.sites[num].id != id {
		t.skipped.Add(1)
		return false
	}
	sf := t.sites[num]
	ev.Site = uint32(sf.num)
	ev.Probe = uint32(sf.site.ProbeIndex)
	ev.PID, ev.TID = pid, tid
	ev.Time = time.Unix(0, t.epoch+int64(sm.time))
	ev.CPU = sm.cpu
	t.stack(ev)
	if ef.comm != nil {
		if c, ok := dynamic(raw, ef.comm); ok {
			c = cstring(c)
			if ev.Comm != string(c) {
				ev.Comm = string(c)
			}
		}
	}
	args := sf.site.Args
	ev.Args = ev.Args[:0]
	for j, f := range sf.args {
		ev.Args = append(ev.Args, hit.Value{})
		v := &ev.Args[j]
		if f == nil {
			continue
		}
		if f.Dynamic {
			if j < len(sf.high) && sf.high[j] != nil && !t.lowAddress(raw, sf, j, pid) {
				continue
			}
			s, ok := dynamic(raw, f)
			if !ok || len(s) == 0 {
				continue // the kernel could not read it
			}
			s = cstring(s)
			v.Kind, v.Size = hit.String, 8
			if len(s) > t.strlen {
				s, v.Truncated = s[:t.strlen], true
			}
			v.Str = string(s)
			continue
		}
		if f.Offset+f.Size > len(raw) {
			continue
		}
		b := raw[f.Offset : f.Offset+f.Size]
		var u uint64
		switch f.Size {
		case 1:
			u = uint64(b[0])
		case 2:
			u = uint64(le.Uint16(b))
		case 4:
			u = uint64(le.Uint32(b))
		case 8:
			u = le.Uint64(b)
		default:
			continue
		}
		v.Kind, v.Size, v.Bits = hit.Uint, f.Size, u
		if f.Signed {
			shift := 64 - 8*f.Size
			v.Kind, v.Bits = hit.Int, uint64(int64(u<<shift)>>shift)
		}
	}
	// strN: cut at the length argument N.
	for j := range ev.Args {
		v := &ev.Args[j]
		if v.Kind != hit.String || j >= len(args) || !args[j].Counted {
			continue
		}
		n := args[j].LenArg
		if n < len(ev.Args) && (ev.Args[n].Kind == hit.Int || ev.Args[n].Kind == hit.Uint) && ev.Args[n].Bits < uint64(len(v.Str)) {
			v.Str, v.Truncated = v.Str[:ev.Args[n].Bits], false
		}
	}
	return true
}

// stack sets the stack of ev from the sample being decoded: the user
// part of its callchain, or its copy of the user stack; none without.
func (t *Tracer) stack(ev *hit.Event) {
	sm := &t.smp
	switch {
	case t.samp.Depth > 0:
		ev.Stack = userChain(ev.Stack[:0], sm.chain, int(t.samp.Depth))
	case t.samp.Copy > 0:
		c := &ev.StackCopy
		t.regs.fill(&c.Regs, sm.regs)
		c.Bytes = append(c.Bytes[:0], sm.stack...)
	}
}

// lowAddress reports whether the kernel read string argument j of an
// event of site sf, whose 4-byte pointer is in memory, at the pointer:
// whether the 4 bytes after it, which the kernel read as the top half of
// the address, are 0. The first time they are not, for each argument of
// each site, it warns.
func (t *Tracer) lowAddress(raw []byte, sf *siteFormat, j int, pid uint32) bool {
	h := sf.high[j]
	if h.Offset+4 <= len(raw) && le.Uint32(raw[h.Offset:]) == 0 {
		return true
	}
	if t.warn != nil && j < 16 && !sf.bad.Has(j) {
		sf.bad |= 1 << j
		p := sf.site.Probe
		t.warn(fmt.Errorf("%s: %v: arg%d %q: a 4-byte pointer in memory, which a 64-bit kernel's fetch argument reads with the 4 bytes after it, not 0 here (pid %d); shown as null", sf.site.Target.Name, p, j, sf.raw[j], pid))
	}
	return false
}

// dynamic returns the data of a __data_loc field of record raw.
func dynamic(raw []byte, f *Field) ([]byte, bool) {
	if f.Offset+4 > len(raw) {
		return nil, false
	}
	loc := le.Uint32(raw[f.Offset:])
	off, n := int(loc&0xffff), int(loc>>16)
	if off+n > len(raw) {
		return nil, false
	}
	return raw[off : off+n], true
}

func cstring(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
