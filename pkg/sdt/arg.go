package sdt

import (
	"fmt"
	"unsafe"
)

// value converts a to the 64-bit register value of an argument of type t.
// A string is copied, NUL-terminated, into *keep, which must stay alive
// until the probe has fired. It does not retain a, so that the interface
// values of Fire's arguments need not escape.
func value(t Type, a any, keep *[]byte) (uint64, bool) {
	if t == String {
		var b []byte
		switch v := a.(type) {
		case string:
			b = append(make([]byte, 0, len(v)+1), v...)
		case []byte:
			b = append(make([]byte, 0, len(v)+1), v...)
		default:
			return 0, false
		}
		b = append(b, 0)
		*keep = b
		return uint64(uintptr(unsafe.Pointer(&b[0]))), true
	}
	switch v := a.(type) {
	case int:
		return uint64(v), true
	case int8:
		return uint64(v), true
	case int16:
		return uint64(v), true
	case int32:
		return uint64(v), true
	case int64:
		return uint64(v), true
	case uint:
		return uint64(v), true
	case uint8:
		return uint64(v), true
	case uint16:
		return uint64(v), true
	case uint32:
		return uint64(v), true
	case uint64:
		return v, true
	case uintptr:
		return uint64(v), true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// kindOf names the Go type of a for an error message without retaining a.
func kindOf(a any) string {
	switch a.(type) {
	case nil:
		return "nil"
	case string:
		return "string"
	case []byte:
		return "[]byte"
	case float32, float64:
		return "float"
	}
	return "a value of another type"
}

// An ArgError reports a Fire argument that does not fit its probe.
type ArgError struct {
	Probe string // PROVIDER:NAME
	Index int    // from 0; -1 for a wrong number of arguments
	Msg   string
}

func (e *ArgError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("usdt: fire %s: %s", e.Probe, e.Msg)
	}
	return fmt.Sprintf("usdt: fire %s: arg%d: %s", e.Probe, e.Index, e.Msg)
}
