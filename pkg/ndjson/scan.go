package ndjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// ErrNotRecord is returned for a JSON object that is neither an event, a
// lost-event count nor a probe site.
var ErrNotRecord = errors.New(`not an event: no "provider" and "name"`)

// A FieldError says a known field has a value of the wrong type.
type FieldError struct {
	Field string
	Want  string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%q: want %s", e.Field, e.Want) }

// errSyntax marks a line the scanner cannot read; Parse asks the JSON
// package for the precise reason.
var errSyntax = errors.New("invalid JSON")

// scanner reads one line of JSON. It knows the grammar but builds nothing
// beyond what Parse asks for.
type scanner struct {
	b      []byte
	i      int
	intern map[string]string
	spare  *spare
}

// spare holds the room of the Fields of the Event of while events
// without fields are read into it.
type spare struct {
	fields []Field
	of     *Event
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return errSyntax
	}
	s.i++
	return nil
}

// rawString reads a string and returns its bytes between the quotes, and
// whether they hold escapes.
func (s *scanner) rawString() ([]byte, bool, error) {
	if s.peek() != '"' {
		return nil, false, errSyntax
	}
	start := s.i + 1
	esc := false
	for i := start; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			return s.b[start:i], esc, nil
		case c == '\\':
			esc = true
			i++
		case c < 0x20:
			return nil, false, errSyntax
		}
	}
	return nil, false, errSyntax
}

// str reads a string value. Strings with escapes are decoded by the JSON
// package; the rest are copied, or shared when intern is set.
func (s *scanner) str(intern bool) (string, error) {
	start := s.i
	raw, esc, err := s.rawString()
	if err != nil {
		return "", err
	}
	if esc {
		var v string
		if err := json.Unmarshal(s.b[start:s.i], &v); err != nil {
			return "", errSyntax
		}
		return v, nil
	}
	if !intern || s.intern == nil {
		return string(raw), nil
	}
	if v, ok := s.intern[string(raw)]; ok {
		return v, nil
	}
	v := string(raw)
	if len(s.intern) < 4096 {
		s.intern[v] = v
	}
	return v, nil
}

// value reads any JSON value.
func (s *scanner) value() (Value, error) {
	switch c := s.peek(); {
	case c == '"':
		v, err := s.str(false)
		return Value{Kind: String, Str: v}, err
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 'n':
		return Value{}, s.literal("null")
	case c == 't':
		return Value{Kind: JSON, Str: "true"}, s.literal("true")
	case c == 'f':
		return Value{Kind: JSON, Str: "false"}, s.literal("false")
	case c == '{' || c == '[':
		start := s.i
		if err := s.skip(); err != nil {
			return Value{}, err
		}
		return Value{Kind: JSON, Str: string(s.b[start:s.i])}, nil
	}
	return Value{}, errSyntax
}

func (s *scanner) literal(lit string) error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return errSyntax
	}
	s.i += len(lit)
	return nil
}

// number reads a JSON number. Integers are accumulated exactly; others
// keep their text.
func (s *scanner) number() (Value, error) {
	start := s.i
	neg := s.b[s.i] == '-'
	if neg {
		s.i++
	}
	digits := s.i
	var u uint64
	overflow := false
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		d := uint64(s.b[s.i] - '0')
		if u > (1<<64-1-d)/10 {
			overflow = true
		}
		u = u*10 + d
		s.i++
	}
	n := s.i - digits
	if n == 0 || n > 1 && s.b[digits] == '0' {
		return Value{}, errSyntax
	}
	integer := true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		integer = false
		s.i++
		if !s.digits() {
			return Value{}, errSyntax
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		integer = false
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return Value{}, errSyntax
		}
	}
	switch {
	case !integer || overflow || neg && u > 1<<63:
		return Value{Kind: Number, Str: string(s.b[start:s.i])}, nil
	case neg && u != 0:
		return Value{Kind: Int, Int: int64(-u)}, nil
	}
	return Value{Kind: Uint, Uint: u}, nil
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// skip reads over one value of any kind.
func (s *scanner) skip() error {
	switch s.peek() {
	case '{':
		s.i++
		if s.peek() == '}' {
			s.i++
			return nil
		}
		for {
			if _, _, err := s.rawString(); err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := s.skip(); err != nil {
				return err
			}
			if more, err := s.next('}'); !more || err != nil {
				return err
			}
		}
	case '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return nil
		}
		for {
			if err := s.skip(); err != nil {
				return err
			}
			if more, err := s.next(']'); !more || err != nil {
				return err
			}
		}
	}
	_, err := s.value()
	return err
}

// next reads the ',' between members or the closing byte.
func (s *scanner) next(end byte) (bool, error) {
	switch s.peek() {
	case ',':
		s.i++
		return true, nil
	case end:
		s.i++
		return false, nil
	}
	return false, errSyntax
}

// integer reads a number that must be an integer within int64.
func (s *scanner) integer(field string) (int64, error) {
	var v Value
	var err error
	if c := s.peek(); c == '-' || c >= '0' && c <= '9' {
		v, err = s.number()
	} else {
		v, err = s.value()
	}
	if err != nil {
		return 0, err
	}
	switch {
	case v.Kind == Int:
		return v.Int, nil
	case v.Kind == Uint && v.Uint <= 1<<63-1:
		return int64(v.Uint), nil
	}
	return 0, &FieldError{field, "an integer"}
}

// Parse decodes one line into e and tells which record it holds. e's
// slices are reused, but for Fields, which is nil when the line has none
// (a Reader keeps their room for the next event with fields). The
// strings of e stay valid after the next call.
func Parse(line []byte, e *Event) (Kind, error) {
	return parse(line, e, nil, nil)
}

func parse(line []byte, e *Event, intern map[string]string, sp *spare) (Kind, error) {
	if intern == nil {
		intern = make(map[string]string)
	}
	s := scanner{b: line, intern: intern, spare: sp}
	k, err := s.record(e)
	if errors.Is(err, errSyntax) {
		return 0, syntaxError(line, s.i)
	}
	return k, err
}

// syntaxError explains why line, which the scanner could not read at
// offset i, is not a record: the JSON package's reason, or that it is
// not an object.
func syntaxError(line []byte, i int) error {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return err
	}
	if b := bytes.TrimSpace(line); len(b) == 0 || b[0] != '{' {
		return errors.New("not a JSON object")
	}
	return fmt.Errorf("offset %d: %w", i, errSyntax)
}

func (s *scanner) record(e *Event) (Kind, error) {
	// An event without fields has nil Fields, so that writing it again
	// gives the same line; a Reader keeps their room for the next event
	// read into e.
	fields := e.Fields
	if fields == nil && s.spare != nil && s.spare.of == e {
		fields = s.spare.fields
	}
	var haveProvider, haveName, haveFields, lost, site, agg bool
	if s.spare != nil {
		defer func() {
			if haveFields {
				*s.spare = spare{}
			} else if cap(fields) > 0 {
				*s.spare = spare{fields[:0], e}
			}
		}()
	}
	ustack := e.UStack
	*e = Event{Args: e.Args[:0], Truncated: e.Truncated[:0]}
	if err := s.expect('{'); err != nil {
		return 0, err
	}
	more := true
	if s.peek() == '}' {
		s.i++
		more = false
	}
	for more {
		key, _, err := s.rawString()
		if err != nil {
			return 0, err
		}
		if err := s.expect(':'); err != nil {
			return 0, err
		}
		switch string(key) {
		case "ts":
			e.TS, err = s.integer("ts")
		case "pid":
			e.PID, err = s.integer("pid")
		case "tid":
			e.TID, err = s.integer("tid")
		case "cpu":
			e.CPU, err = s.integer("cpu")
		case "comm":
			e.Comm, err = s.stringField("comm")
		case "provider":
			e.Provider, err = s.stringField("provider")
			haveProvider = true
		case "name":
			e.Name, err = s.stringField("name")
			haveName = true
		case "args":
			if s.peek() != '[' {
				// sdtlist writes args as the note's string.
				err = s.skip()
				break
			}
			e.Args, err = s.args(e.Args)
		case "fields":
			e.Fields, err = s.fields(fields[:0])
			if e.Fields == nil {
				e.Fields = []Field{}
			}
			haveFields = true
		case "truncated":
			e.Truncated, err = s.positions(e.Truncated)
		case "ustack":
			e.UStack, err = s.frames(ustack[:0])
		case "lost":
			var v Value
			if v, err = s.value(); err == nil && v.Kind != Uint {
				err = &FieldError{"lost", "a count"}
			}
			e.Lost, lost = v.Uint, true
		case "file", "pc", "argv":
			site = true
			err = s.skip()
		case "count", "buckets", "by":
			agg = true
			err = s.skip()
		default:
			err = s.skip()
		}
		if err != nil {
			return 0, err
		}
		if more, err = s.next('}'); err != nil {
			return 0, err
		}
	}
	if s.ws(); s.i < len(s.b) {
		return 0, errSyntax
	}
	switch {
	case site:
		return KindSite, nil
	case lost:
		return KindLost, nil
	case agg && haveProvider && haveName:
		return KindAggregate, nil
	case haveProvider && haveName:
		return KindEvent, nil
	}
	return 0, ErrNotRecord
}

func (s *scanner) stringField(field string) (string, error) {
	if s.peek() != '"' {
		if err := s.skip(); err != nil {
			return "", err
		}
		return "", &FieldError{field, "a string"}
	}
	return s.str(true)
}

func (s *scanner) args(dst []Value) ([]Value, error) {
	s.i++ // '['
	if s.peek() == ']' {
		s.i++
		return dst, nil
	}
	for {
		v, err := s.value()
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
		if more, err := s.next(']'); !more || err != nil {
			return dst, err
		}
	}
}

func (s *scanner) fields(dst []Field) ([]Field, error) {
	err := s.each('{', "fields", "an object", func() error {
		name, err := s.str(true)
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		v, err := s.value()
		if err != nil {
			return err
		}
		dst = append(dst, Field{name, v})
		return nil
	})
	return dst, err
}

// positions reads an array of positions in args.
func (s *scanner) positions(dst []int) ([]int, error) {
	const want = "an array of positions"
	err := s.each('[', "truncated", want, func() error {
		v, err := s.value()
		if err != nil {
			return err
		}
		if v.Kind != Uint || v.Uint > math.MaxInt32 {
			return &FieldError{"truncated", want}
		}
		dst = append(dst, int(v.Uint))
		return nil
	})
	return dst, err
}

// frames reads a stack: an array of frames.
func (s *scanner) frames(dst []Frame) ([]Frame, error) {
	const want = "an array of frames"
	err := s.each('[', "ustack", want, func() error {
		var f Frame
		err := s.each('{', "ustack", want, func() error {
			key, _, err := s.rawString()
			if err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			switch string(key) {
			case "addr", "off", "file_offset":
				v, err := s.value()
				if err != nil {
					return err
				}
				if v.Kind != Uint {
					return &FieldError{"ustack", "frames of unsigned " + string(key)}
				}
				switch string(key) {
				case "addr":
					f.Addr = v.Uint
				case "off":
					f.Off = v.Uint
				default:
					f.FileOffset = v.Uint
				}
			case "sym":
				f.Sym, err = s.stringField("ustack")
			case "file":
				f.File, err = s.stringField("ustack")
			case "build_id":
				f.BuildID, err = s.stringField("ustack")
			default:
				err = s.skip()
			}
			return err
		})
		dst = append(dst, f)
		return err
	})
	if dst == nil {
		dst = []Frame{} // "ustack":[] stays an empty stack
	}
	return dst, err
}

// each reads an array or an object, as open says, calling elem for each
// element or member. A value of another type is skipped and reported as
// a *FieldError for field.
func (s *scanner) each(open byte, field, want string, elem func() error) error {
	if s.peek() != open {
		if err := s.skip(); err != nil {
			return err
		}
		return &FieldError{field, want}
	}
	end := byte(']')
	if open == '{' {
		end = '}'
	}
	s.i++
	if s.peek() == end {
		s.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if more, err := s.next(end); !more || err != nil {
			return err
		}
	}
}
