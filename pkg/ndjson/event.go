package ndjson

import (
	"strconv"

	"github.com/sdtkit/sdtkit/internal/jsonenc"
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
	// Fields names the values of Args, in their order, for a probe whose
	// arguments sdtattach --types knows. nil means the event has none: a
	// probe declared with no arguments has an empty Fields that is not
	// nil, written "fields":{}.
	Fields []Field
	// Truncated lists the positions in Args, from 0, of the strings cut
	// at sdtattach --strlen bytes.
	Truncated []int
	// UStack is the thread's user stack at the probe, innermost first,
	// when sdtattach --ustack took it; nil otherwise.
	UStack []Frame
	Lost   uint64
}

// A Frame is one address of a stack, symbolized: its JSON object is
//
//	{"addr":94558765441388,"sym":"inner","off":12,"file":"/usr/bin/prog","file_offset":4460,"build_id":"5e1f..."}
//
// with sym and off when a symbol is known, file and file_offset when a
// file is mapped at the address, build_id when that file has one (the
// form of package symbolize's Frame).
type Frame struct {
	Addr       uint64
	Sym        string
	Off        uint64
	File       string
	FileOffset uint64
	BuildID    string
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
	// Hex and Float are for writers, which have the number at hand: Hex
	// is an unsigned integer in Value.Uint, written as a JSON string
	// such as "0x1f", and Float a float64 in Value.Float, written as a
	// JSON number (null for NaN and the infinities). Read back, they are
	// a String and a Number.
	Hex
	Float
)

// A Value is one argument or field. The zero Value is null.
type Value struct {
	Kind  ValueKind
	Uint  uint64
	Int   int64
	Float float64
	Str   string
}

// UintValue returns the Value of u.
func UintValue(u uint64) Value { return Value{Kind: Uint, Uint: u} }

// IntValue returns the Value of i: an Int when it is negative, else a
// Uint, as a reader sees the number.
func IntValue(i int64) Value {
	if i < 0 {
		return Value{Kind: Int, Int: i}
	}
	return Value{Kind: Uint, Uint: uint64(i)}
}

// StringValue returns the Value of s.
func StringValue(s string) Value { return Value{Kind: String, Str: s} }

// HexValue returns the Value of u shown in hexadecimal, "0x1f".
func HexValue(u uint64) Value { return Value{Kind: Hex, Uint: u} }

// FloatValue returns the Value of f.
func FloatValue(f float64) Value { return Value{Kind: Float, Float: f} }

// Uint64 returns the value as the unsigned 64-bit integer C would see:
// negative integers in two's complement, hex strings such as "0x1f" parsed.
func (v Value) Uint64() (uint64, bool) {
	switch v.Kind {
	case Uint, Hex:
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
// other numbers as written (Float as in JSON, Hex as 0x1f), strings bare
// unless they are empty or hold blanks, quotes, backslashes, control
// bytes, invalid UTF-8 or other unprintable characters (then Go-quoted),
// objects and arrays as written unless they hold unprintable characters
// (then Go-quoted), "?" for null.
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
	case Hex:
		return appendHex(b, v.Uint)
	case Float:
		if !isNaNOrInf(v.Float) {
			return jsonenc.AppendFloat(b, v.Float)
		}
	}
	return append(b, '?')
}

// String returns the value as AppendText writes it.
func (v Value) String() string { return string(v.AppendText(nil)) }
