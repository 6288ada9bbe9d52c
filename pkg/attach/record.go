package attach

import (
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// Value returns an argument's value v as the argument's type shows it
// (see package ndjson): null when it was not read; a string for a str
// type; an integer of the type's size and sign for s8..u64; the value
// in hexadecimal, at the note's size, for hex; and by default an integer
// of the note's size and sign, or a number for a float.
func (a *Arg) Value(v hit.Value) ndjson.Value {
	var ev ndjson.Value
	a.setValue(&ev, &v)
	return ev
}

// setValue is Value writing into *dst, which is zero: on the path of
// every event, without copies of the values.
func (a *Arg) setValue(dst *ndjson.Value, v *hit.Value) {
	switch v.Kind {
	case hit.NotRead:
		return
	case hit.String:
		if a.Type.Kind == probespec.String {
			dst.Kind, dst.Str = ndjson.String, v.Str
			return
		}
	}
	switch a.Type.Kind {
	case probespec.Int:
		if a.Type.Signed {
			*dst = ndjson.IntValue(int64(v.As(a.Type.Size, true)))
		} else {
			dst.Kind, dst.Uint = ndjson.Uint, v.As(a.Type.Size, false)
		}
		return
	case probespec.Hex:
		size := v.Size
		if size <= 0 || size > 8 {
			size = 8
		}
		dst.Kind, dst.Uint = ndjson.Hex, v.As(size, false)
		return
	}
	switch v.Kind {
	case hit.Int:
		*dst = ndjson.IntValue(int64(v.Bits))
	case hit.Float:
		dst.Kind, dst.Float = ndjson.Float, v.Float()
	default:
		dst.Kind, dst.Uint = ndjson.Uint, v.Bits
	}
}

// noArg is how an argument past those a site describes is shown.
var noArg Arg

// Record fills rec with the event as sdtattach writes it, reusing the
// memory of rec's slices: the arguments the site's types do not drop,
// with their names as fields when the site has them, and the positions
// of the strings that were cut.
func (e *Event) Record(rec *ndjson.Event) {
	s := e.Site
	rec.TS = e.Time.UnixNano()
	rec.PID, rec.TID, rec.CPU = int64(e.PID), int64(e.TID), int64(e.CPU)
	rec.Comm = e.Comm
	rec.Provider, rec.Name = s.Probe.Provider, s.Probe.Name
	rec.Args, rec.Truncated, rec.Lost, rec.UStack = rec.Args[:0], rec.Truncated[:0], 0, nil
	switch {
	case !s.Fields:
		rec.Fields = nil
	case rec.Fields == nil:
		// Not nil, so that a probe without arguments has "fields":{}.
		rec.Fields = make([]ndjson.Field, 0, len(e.Args))
	default:
		rec.Fields = rec.Fields[:0]
	}
	for i := range e.Args {
		a := &noArg
		if i < len(s.Args) {
			a = &s.Args[i]
		}
		if a.Type.Kind == probespec.Drop {
			continue
		}
		v := &e.Args[i]
		if v.Kind == hit.String && v.Truncated {
			rec.Truncated = append(rec.Truncated, len(rec.Args))
		}
		n := len(rec.Args)
		rec.Args = append(rec.Args, ndjson.Value{})
		a.setValue(&rec.Args[n], v)
		if s.Fields {
			rec.Fields = append(rec.Fields, ndjson.Field{Name: a.Name, Value: rec.Args[n]})
		}
	}
}
