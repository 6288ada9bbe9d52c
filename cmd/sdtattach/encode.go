package main

import (
	"strconv"

	"github.com/sdtkit/sdtkit/internal/jsonenc"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// The event encoder writes each event's JSON straight into a byte slice,
// with no reflection and no boxing of argument values: the reader's time
// per event decides how many events a traced process may fire before
// the ring buffer fills. Its output is what encoding/json gives with
// HTML escaping off (see package jsonenc).

// appendValue appends the JSON of an argument as typ asks: null when it
// was not read, a string for a str or hex type, a number otherwise.
func appendValue(b []byte, v bpf.Value, typ probespec.Type) []byte {
	switch v.Kind {
	case bpf.NotRead:
		return append(b, "null"...)
	case bpf.String:
		if typ.Kind == probespec.String {
			return jsonenc.AppendString(b, v.Str)
		}
	}
	switch typ.Kind {
	case probespec.Int:
		if typ.Signed {
			return strconv.AppendInt(b, int64(v.As(typ.Size, true)), 10)
		}
		return strconv.AppendUint(b, v.As(typ.Size, false), 10)
	case probespec.Hex:
		size := v.Size
		if size <= 0 || size > 8 {
			size = 8
		}
		b = append(b, `"0x`...)
		b = strconv.AppendUint(b, v.As(size, false), 16)
		return append(b, '"')
	}
	switch v.Kind {
	case bpf.Int:
		return strconv.AppendInt(b, int64(v.Bits), 10)
	case bpf.Float:
		return jsonenc.AppendFloat(b, v.Float())
	}
	return strconv.AppendUint(b, v.Bits, 10)
}
