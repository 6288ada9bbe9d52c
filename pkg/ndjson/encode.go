package ndjson

import (
	"math"
	"strconv"

	"github.com/sdtkit/sdtkit/internal/jsonenc"
)

// The encoders append each record straight to a byte slice, with no
// reflection and no boxing of values, so that a writer reusing its
// Event and its buffer allocates nothing per event: sdtattach's time
// per event decides how fast a traced process may fire before its ring
// buffer fills. Strings are escaped as encoding/json escapes them with
// HTML escaping off (see package jsonenc).

// AppendEvent appends the line of an event to b: its JSON object, with
// the fields in the order the package documentation gives, and a
// newline. "fields" is written when e.Fields is not nil, "truncated" when
// e.Truncated is not empty, "ustack" when e.UStack is not nil.
func AppendEvent(b []byte, e *Event) []byte {
	b = append(b, `{"ts":`...)
	b = strconv.AppendInt(b, e.TS, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, e.PID, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, e.TID, 10)
	b = append(b, `,"comm":`...)
	b = jsonenc.AppendString(b, e.Comm)
	b = append(b, `,"cpu":`...)
	b = strconv.AppendInt(b, e.CPU, 10)
	b = append(b, `,"provider":`...)
	b = jsonenc.AppendString(b, e.Provider)
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, e.Name)
	b = append(b, `,"args":[`...)
	for i, v := range e.Args {
		if i > 0 {
			b = append(b, ',')
		}
		b = v.AppendJSON(b)
	}
	b = append(b, ']')
	if e.Fields != nil {
		b = append(b, `,"fields":{`...)
		for i, f := range e.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, f.Name)
			b = append(b, ':')
			b = f.Value.AppendJSON(b)
		}
		b = append(b, '}')
	}
	if len(e.Truncated) > 0 {
		b = append(b, `,"truncated":[`...)
		for i, t := range e.Truncated {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(t), 10)
		}
		b = append(b, ']')
	}
	if e.UStack != nil {
		b = append(b, `,"ustack":[`...)
		for i := range e.UStack {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.UStack[i].AppendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}', '\n')
}

// AppendJSON appends the JSON object of f to b.
func (f *Frame) AppendJSON(b []byte) []byte {
	b = append(b, `{"addr":`...)
	b = strconv.AppendUint(b, f.Addr, 10)
	if f.Sym != "" {
		b = append(b, `,"sym":`...)
		b = jsonenc.AppendString(b, f.Sym)
		b = append(b, `,"off":`...)
		b = strconv.AppendUint(b, f.Off, 10)
	}
	if f.File != "" {
		b = append(b, `,"file":`...)
		b = jsonenc.AppendString(b, f.File)
		b = append(b, `,"file_offset":`...)
		b = strconv.AppendUint(b, f.FileOffset, 10)
	}
	if f.BuildID != "" {
		b = append(b, `,"build_id":`...)
		b = jsonenc.AppendString(b, f.BuildID)
	}
	return append(b, '}')
}

// AppendLost appends the line {"lost":n} to b.
func AppendLost(b []byte, n uint64) []byte {
	b = append(b, `{"lost":`...)
	b = strconv.AppendUint(b, n, 10)
	return append(b, '}', '\n')
}

// AppendJSON appends the value as JSON: null, a number, a string, or for
// Number and JSON their text as it is, which must be valid JSON (null
// when it is empty).
func (v Value) AppendJSON(b []byte) []byte {
	switch v.Kind {
	case Uint:
		return strconv.AppendUint(b, v.Uint, 10)
	case Int:
		return strconv.AppendInt(b, v.Int, 10)
	case String:
		return jsonenc.AppendString(b, v.Str)
	case Hex:
		b = append(b, '"')
		return append(appendHex(b, v.Uint), '"')
	case Float:
		return jsonenc.AppendFloat(b, v.Float)
	case Number, JSON:
		if v.Str != "" {
			return append(b, v.Str...)
		}
	}
	return append(b, "null"...)
}

func appendHex(b []byte, u uint64) []byte {
	return strconv.AppendUint(append(b, '0', 'x'), u, 16)
}

func isNaNOrInf(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
