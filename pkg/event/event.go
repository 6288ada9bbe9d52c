package event

import (
	"strconv"

	"github.com/sdtkit/sdtkit/internal/termtext"
)

// Kind tells which record a line holds.
type Kind uint8

const (
	// KindEvent is a probe hit: an Event with Provider and Name.
	KindEvent Kind = iota + 1
	// KindLost is {"lost":N}: Event.Lost events were dropped here.
	KindLost
	// KindSite is a probe site written by sdtlist; decode it with ParseSite.
	KindSite
	// KindAggregate is a count, histogram or stats of sdtattach's
	// in-kernel aggregations; decode it with aggregate.ParseRecord.
	KindAggregate
)

// An Event is one probe hit, or with KindLost a count of dropped events.
type Event struct {
	TS       int64 // Unix nanoseconds
	PID, TID int64
	Comm     string
	CPU      int64
	Provider string
	Name     string
	Args     []Value
	Fields   []Field // in input order; empty without sdtattach --types
	Lost     uint64
}

// Field returns the value of the field called name.
func (e *Event) Field(name string) (Value, bool) {
	for _, f := range e.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return Value{}, false
}

// A Field is a named value of an event.
type Field struct {
	Name  string
	Value Value
}

// ValueKind tells how a Value was written.
type ValueKind uint8

const (
	Null   ValueKind = iota // null: the argument could not be read
	Uint                    // a non-negative integer, in Value.Uint
	Int                     // a negative integer, in Value.Int
	Number                  // any other JSON number, as written in Value.Str
	String                  // a JSON string, decoded in Value.Str
	JSON                    // an object or array, as written in Value.Str
)

// A Value is one argument or field.
type Value struct {
	Kind ValueKind
	Uint uint64
	Int  int64
	Str  string
}

// Uint64 returns the value as the unsigned 64-bit integer C would see:
// negative integers in two's complement, hex strings such as "0x1f" parsed.
func (v Value) Uint64() (uint64, bool) {
	switch v.Kind {
	case Uint:
		return v.Uint, true
	case Int:
		return uint64(v.Int), true
	case String:
		return parseHex(v.Str)
	}
	return 0, false
}

// Int64 returns the value as a signed 64-bit integer, reinterpreting
// unsigned values above the int64 range in two's complement.
func (v Value) Int64() (int64, bool) {
	if v.Kind == Int {
		return v.Int, true
	}
	u, ok := v.Uint64()
	return int64(u), ok
}

func parseHex(s string) (uint64, bool) {
	if len(s) < 3 || s[0] != '0' || s[1] != 'x' && s[1] != 'X' {
		return 0, false
	}
	u, err := strconv.ParseUint(s[2:], 16, 64)
	return u, err == nil
}

// AppendText appends the value as people read it: integers in decimal,
// other numbers as written, strings bare unless they are empty or hold
// blanks, quotes, backslashes, control bytes, invalid UTF-8 or other
// unprintable characters (then Go-quoted), objects and arrays as written
// unless they hold unprintable characters (then Go-quoted), "?" for null.
func (v Value) AppendText(b []byte) []byte {
	switch v.Kind {
	case Uint:
		return strconv.AppendUint(b, v.Uint, 10)
	case Int:
		return strconv.AppendInt(b, v.Int, 10)
	case String:
		return termtext.Append(b, v.Str)
	case Number:
		return append(b, v.Str...)
	case JSON:
		// JSON may hold U+2028, C1 controls and invalid UTF-8 raw.
		return termtext.AppendPrintable(b, v.Str)
	}
	return append(b, '?')
}

// String returns the value as AppendText writes it.
func (v Value) String() string { return string(v.AppendText(nil)) }
